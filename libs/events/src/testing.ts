/**
 * The test side of an event consumer (`@tracker/events/testing`, apart from the main entry
 * so that no service loads test code): publishing as the publishers' relays do, and
 * reading what the consumer dead-lettered. It lives here rather than in libs/testing so
 * that libs/testing does not depend on this library, which tests itself with libs/testing.
 */

import { connect } from 'amqplib';
import { consumerQueues, eventSourceOf, routingKeyOf, taggedEventHeaders, type EventEnvelope, type EventKeys } from './index';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys, type Signer } from '@tracker/signing';
import { eventually, testAmqpUrl, type AmqpTestNames } from '@tracker/testing';

const DEV_TRUSTED = parseTrustedKeys(devTrustedKeysText());

/** Each publisher's development keys, made once: the keys it shares with the consumers are cached per key object. */
const devEventKeys = new Map<Signer, EventKeys>();
function devEventKeysOf(signer: Signer): EventKeys {
  let keys = devEventKeys.get(signer);
  if (!keys) devEventKeys.set(signer, (keys = { key: devSigningKey(signer), trusted: DEV_TRUSTED }));
  return keys;
}

/** An event to publish, or raw text under a routing key (sent untagged, as no relay would). */
export type TestMessage = EventEnvelope | { routingKey: string; raw: string };

export interface EventPublisher {
  /** Publishes to the test's exchange under each event's routing key, tagged as its publisher's relay tags it, and waits for the broker's confirms. */
  publish: (messages: TestMessage[]) => Promise<void>;
  /** Deletes the test's exchange and queues, then disconnects. */
  close: () => Promise<void>;
}

export async function startEventPublisher(amqp: AmqpTestNames): Promise<EventPublisher> {
  const connection = await connect(testAmqpUrl());
  connection.on('error', () => undefined);
  const channel = await connection.createConfirmChannel();
  channel.on('error', () => undefined);
  return {
    async publish(messages) {
      for (const m of messages) {
        const [routingKey, content, messageId] =
          'raw' in m ? [m.routingKey, Buffer.from(m.raw), undefined] : [routingKeyOf(m.type), Buffer.from(JSON.stringify(m)), m.event_id];
        // As the publishers' relays send them: tagged for each consumer under the key each shares with it.
        const headers = 'raw' in m ? {} : taggedEventHeaders(devEventKeysOf(eventSourceOf[m.type]), m, content);
        channel.publish(amqp.exchange, routingKey, content, { persistent: true, contentType: 'application/json', messageId, headers });
      }
      await channel.waitForConfirms();
    },
    async close() {
      await amqp.cleanup(channel).catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}

/** Once `queue`'s dead-letter queue holds exactly `count` messages: their bodies, taken off it. */
export async function deadLettered(queue: string, count: number): Promise<string[]> {
  const { dead } = consumerQueues(queue);
  const connection = await connect(testAmqpUrl());
  try {
    const channel = await connection.createChannel();
    await eventually(async () => expect((await channel.checkQueue(dead)).messageCount).toBe(count));
    const bodies: string[] = [];
    for (let n = 0; n < count; n++) {
      const message = await channel.get(dead, { noAck: true });
      if (message) bodies.push(message.content.toString());
    }
    return bodies;
  } finally {
    await connection.close();
  }
}
