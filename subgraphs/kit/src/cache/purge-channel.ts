import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/**
 * Announcements that responses tagged with surrogate keys are stale: the content service says
 * so after each publish or purge, and every process that keeps such responses in memory (the
 * REST bridge's response cache) drops them. Within one process the announcement is heard at
 * once, before `publish` resolves; with Redis it also goes to every other process over pub/sub.
 */
export interface PurgeChannel {
  /** Announces that responses tagged with any of `keys` are stale; never rejects (a failure is logged). */
  publish(keys: readonly string[]): Promise<void>;
  /** Hears every announcement from now on; returns a function that stops listening. */
  subscribe(listener: PurgeListener): () => void;
  close(): Promise<void>;
}

export interface PurgeListener {
  purge(keys: readonly string[]): void;
  /**
   * Whether every announcement is heard from now on. False while the Redis subscription is down
   * (announcements of other processes may be lost), so a listener must stop relying on what it
   * kept; true once subscribed (again). A channel without Redis says true at once.
   */
  heard(heard: boolean): void;
}

/** Announcements within this process (every service of `svc all` shares it). */
const local = new EventEmitter().setMaxListeners(0);
const LOCAL_EVENT = 'purge';

/**
 * The channel of this process, and with `redisUrl` of every process on that Redis (channel
 * `<prefix>svc:purge`). Without Redis only listeners in this process hear it: give such a
 * channel to a listener only when every publisher runs here too.
 */
export function createPurgeChannel(options: { redisUrl?: string; prefix: string; log: Logger }): PurgeChannel {
  const { log } = options;
  const channel = `${options.prefix}svc:purge`;
  const redisOptions = { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000, commandTimeout: 500, lazyConnect: true, retryStrategy: (times: number) => Math.min(5000, 100 * 2 ** Math.min(times, 6)) };
  let publisher: Redis | undefined;
  let subscriber: Redis | undefined;
  const listeners = new Set<PurgeListener>();
  /** Whether the Redis subscription is up. */
  let up = false;
  const onLocal = (keys: readonly string[]) => {
    for (const listener of listeners) listener.purge(keys);
  };

  /** One subscription for every listener of this channel; `heard` follows it. */
  function subscribeRedis(url: string): void {
    // Named, so an operator (and a test) can find it in CLIENT LIST.
    const sub = (subscriber = new Redis(url, { ...redisOptions, enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null, connectionName: `${channel.replace(/[^\w:.-]/g, '_')}:subscriber` }));
    const tell = (heard: boolean) => {
      if (heard === up) return;
      up = heard;
      if (heard) log.info({ channel }, 'purge announcements: subscribed');
      else log.warn({ channel }, 'purge announcements: subscription lost; what was kept on their word is dropped until it is back');
      for (const listener of listeners) listener.heard(heard);
    };
    sub.on('ready', () => {
      sub.subscribe(channel).then(() => tell(true), (error: Error) => log.warn({ err: error, channel }, 'purge announcements: subscribe failed'));
    });
    sub.on('close', () => tell(false));
    sub.on('error', () => undefined); // 'close' says it; reconnects back off up to 5 s
    sub.on('message', (_channel: string, message: string) => {
      try {
        const keys = JSON.parse(message) as unknown;
        if (Array.isArray(keys) && keys.every((k) => typeof k === 'string')) onLocal(keys);
      } catch {
        log.warn({ channel }, 'purge announcements: a message that is not a list of keys was ignored');
      }
    });
    sub.connect().catch(() => undefined);
  }

  /** Whether the last announcement over Redis failed: a failure is logged once, and the recovery. */
  let failing = false;

  return {
    /** Never rejects: a failure to reach Redis is logged (once until it works again). */
    async publish(keys) {
      if (!keys.length) return;
      local.emit(LOCAL_EVENT, keys);
      if (!options.redisUrl) return;
      try {
        if (!publisher) {
          publisher = new Redis(options.redisUrl, redisOptions);
          publisher.on('error', () => undefined); // the failed command says it
        }
        if (publisher.status === 'wait') await publisher.connect();
        await publisher.publish(channel, JSON.stringify(keys));
        if (failing) log.info({ channel }, 'purge announcements: sent again');
        failing = false;
      } catch (error) {
        if (!failing) log.warn({ channel, reason: (error as Error).message }, 'purge announcements: could not send; a bridge in another process may serve a purged delivery until its s-maxage ends');
        failing = true;
      }
    },
    subscribe(listener) {
      if (!listeners.size) local.on(LOCAL_EVENT, onLocal);
      listeners.add(listener);
      if (!options.redisUrl) listener.heard(true);
      else if (!subscriber) subscribeRedis(options.redisUrl);
      else if (up) listener.heard(true);
      return () => {
        listeners.delete(listener);
        if (!listeners.size) local.off(LOCAL_EVENT, onLocal);
      };
    },
    async close() {
      listeners.clear();
      local.off(LOCAL_EVENT, onLocal);
      for (const client of [publisher, subscriber]) await client?.quit().catch(() => client.disconnect());
    },
  };
}
