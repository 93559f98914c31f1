/**
 * @coffer/adapter-redis: the Cache port on Redis (ioredis), shared by every instance of a service: token-check
 * and resolution caching, rate-limit counters and cross-instance invalidation over pub/sub.
 */
export * as RedisCache from "./RedisCache.js"
