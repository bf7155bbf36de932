/**
 * The broker's own round trip: messages published with confirms at `rate`/s for `seconds`
 * to a queue of its own and consumed; each one's ms from publish to arrival. The ceiling
 * beside B6's replica lag and B12's feed.
 */
import { connect } from 'amqplib';
import { sleep } from './run';

export async function amqpRoundTrip(url: string, rate: number, seconds: number): Promise<number[]> {
  const publisher = await connect(url);
  const consumer = await connect(url);
  const lags: number[] = [];
  try {
    const pch = await publisher.createConfirmChannel();
    const cch = await consumer.createChannel();
    const { queue } = await cch.assertQueue('', { exclusive: true, autoDelete: true });
    await cch.consume(queue, (msg) => {
      if (!msg) return;
      lags.push(Date.now() - Number(msg.content.toString()));
      cch.ack(msg);
    });
    const total = rate * seconds;
    const startedAt = Date.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = startedAt + (i * 1000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      pending.push(
        new Promise<void>((resolve, reject) =>
          pch.sendToQueue(queue, Buffer.from(String(Date.now())), { persistent: true }, (err) => (err ? reject(err) : resolve())),
        ),
      );
    }
    await Promise.all(pending);
    const deadline = Date.now() + 10_000;
    while (lags.length < total && Date.now() < deadline) await sleep(20);
  } finally {
    await publisher.close();
    await consumer.close();
  }
  return lags;
}
