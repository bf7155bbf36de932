import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { EVENT_SIGNATURE_HEADER, EVENT_TAG_HEADER, routingKeyOf, signEventMessage, tagEventMessage, type EventEnvelope } from '@tracker/events';
import { devSigningKey, devTrustedKeysText, parseTrustedKeys, type SigningKey } from '@tracker/signing';
import { testAmqpUrl } from '@tracker/testing';
import { event, issueState, newId, queueState } from './fixtures';
import { eventually, startStatistics, type StatisticsHarness } from './harness';

/**
 * What the consumer refuses, through the real broker and database: events not published
 * by the service that owns their type (libs/events signature.ts), and events that
 * contradict the workspaces the replica holds (src/domain/workspace-rule.ts). Refused
 * events are never applied and land in the bounded dead-letter queue `<queue>.dlq`.
 */
let h: StatisticsHarness;
let connection: ChannelModel;
let channel: ConfirmChannel;
beforeAll(async () => {
  h = await startStatistics({ consumer: true });
  connection = await connect(testAmqpUrl());
  connection.on('error', () => undefined);
  channel = await connection.createConfirmChannel();
  channel.on('error', () => undefined);
});
afterAll(async () => {
  await connection?.close().catch(() => undefined);
  await h?.close();
});

const dlq = () => `${h.queue}.dlq`;
const KEYS = { issues: devSigningKey('issues'), access: devSigningKey('access'), agent: devSigningKey('agent'), gateway: devSigningKey('gateway') };

/** Publishes to the service's exchange as anyone with access to it can: these exact bytes and headers. */
async function forge(e: EventEnvelope, options: { signer?: SigningKey; tagger?: SigningKey; signed?: EventEnvelope; body?: Buffer; routingKey?: string } = {}) {
  const body = options.body ?? Buffer.from(JSON.stringify(e));
  const signed = options.signed ?? e;
  const signedBody = options.body ? Buffer.from(JSON.stringify(signed)) : body;
  const headers = options.signer
    ? { [EVENT_SIGNATURE_HEADER]: signEventMessage(options.signer, signed, signedBody) }
    : options.tagger
      ? { [EVENT_TAG_HEADER]: tagEventMessage({ key: options.tagger, trusted: parseTrustedKeys(devTrustedKeysText()) }, signed, signedBody) }
      : {};
  channel.publish(h.amqp!.exchange, options.routingKey ?? routingKeyOf(e.type), body, { persistent: true, contentType: 'application/json', messageId: e.event_id, headers });
  await channel.waitForConfirms();
}

/** Takes every message off the dead-letter queue; returns their message ids. */
async function drainDeadLetters(): Promise<string[]> {
  const ids: string[] = [];
  for (let m = await channel.get(dlq(), { noAck: true }); m; m = await channel.get(dlq(), { noAck: true })) ids.push(m.properties.messageId as string);
  return ids;
}

const deadLetterCount = async () => (await channel.checkQueue(dlq())).messageCount;
const metric = async (name: string) => (await h.service.metrics.registry.getSingleMetric(name)!.get()).values;
const issueRow = async (id: number) => (await h.schema.query<any>('SELECT workspace_id, queue_id, title, revision FROM issues WHERE id = $1', [id]))[0];
const queueRow = async (id: number) => (await h.schema.query<any>('SELECT workspace_id, name, revision FROM queues WHERE id = $1', [id]))[0];
const refusedLines = (eventIds: string[]) => h.logs.filter((l) => eventIds.includes(l.eventId as string) && /refused/.test(l.msg));

describe('events not published by their owner', () => {
  test('when a forger publishes issue events (unsigned, signed by the agent, the gateway or access, or altered after signing), then none is applied and each is dead-lettered; genuine events still apply', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'FRG');
    const issue = (title: string) => issueState(queue, { title });
    const created = (title: string) => {
      const state = issue(title);
      return event('issue.created', ws.id, state.id, 1, { issue: state });
    };
    const [unsigned, byAgent, byGateway, byAccess] = ['unsigned', 'by agent', 'by gateway', 'by access'].map(created);
    const original = issue('as signed');
    const signedOriginal = event('issue.created', ws.id, original.id, 1, { issue: original });
    const altered = { ...signedOriginal, data: { issue: { ...original, title: 'altered after signing', assignee_id: 666 } } };
    // An access event type, validly signed by issues, sent with an issue routing key so it reaches the queue.
    const userByIssues = event('user.updated', ws.id, 77, 1, { user: { id: 77, name: 'Mallory', role: 'admin', active: true } });
    const genuine = created('genuine');
    const deadBefore = (await metric('tracker_consumer_dead_letters_total')).filter((v) => v.labels.queue === h.queue);

    await forge(unsigned);
    await forge(byAgent, { signer: KEYS.agent });
    await forge(byGateway, { signer: KEYS.gateway });
    await forge(byAccess, { signer: KEYS.access });
    await forge(altered, { signer: KEYS.issues, signed: signedOriginal, body: Buffer.from(JSON.stringify(altered)) });
    await forge(userByIssues, { signer: KEYS.issues, routingKey: 'tracker.issue.updated' });
    await h.publish([genuine]);
    await h.handled([genuine.event_id]);

    const forged = [unsigned, byAgent, byGateway, byAccess, altered, userByIssues];
    await eventually(async () => expect(await deadLetterCount()).toBe(forged.length));
    expect((await metric('tracker_consumer_dead_letter_messages')).find((v) => v.labels.queue === h.queue)?.value).toBe(forged.length);

    expect(await issueRow(genuine.data.issue.id)).toMatchObject({ title: 'genuine', revision: 1 });
    for (const e of [unsigned, byAgent, byGateway, byAccess]) expect(await issueRow(Number(e.aggregate.id))).toBeUndefined();
    expect(await issueRow(original.id)).toBeUndefined();
    expect(h.logs.filter((l) => l.msg === 'event' && forged.some((e) => e.event_id === l.eventId))).toEqual([]);

    expect(refusedLines(forged.map((e) => e.event_id)).map((l) => [l.level, l.eventId, l.reason, l.claimedSigner])).toEqual([
      [40, unsigned.event_id, 'unsigned', undefined],
      [40, byAgent.event_id, 'wrong_source', 'agent'],
      [40, byGateway.event_id, 'wrong_source', 'gateway'],
      [40, byAccess.event_id, 'wrong_source', 'access'],
      [40, altered.event_id, 'bad_signature', 'issues'],
      [40, userByIssues.event_id, 'wrong_source', 'issues'],
    ]);
    const deadNow = (await metric('tracker_consumer_dead_letters_total')).filter((v) => v.labels.queue === h.queue);
    const added = (reason: string) =>
      (deadNow.find((v) => v.labels.reason === reason)?.value ?? 0) - (deadBefore.find((v) => v.labels.reason === reason)?.value ?? 0);
    expect([added('unsigned'), added('wrong_source'), added('bad_signature')]).toEqual([1, 4, 1]);

    expect((await drainDeadLetters()).sort()).toEqual(forged.map((e) => e.event_id).sort());
  });
});

describe('events tagged for this service', () => {
  test('when a forger tags issue events (the agent, access, or issues after the body changed), then none is applied and each is dead-lettered; a tagged and a signed genuine event apply', async () => {
    const ws = h.workspace();
    const queue = queueState(ws.id, 'TAG');
    const created = (title: string) => {
      const state = issueState(queue, { title });
      return event('issue.created', ws.id, state.id, 1, { issue: state });
    };
    const [byAgent, byAccess, tagged, signedByOlderRelay] = ['by agent', 'by access', 'tagged', 'signed'].map(created);
    const original = created('as tagged');
    const altered = { ...original, data: { issue: { ...original.data.issue, title: 'altered after tagging' } } };

    await forge(byAgent, { tagger: KEYS.agent });
    await forge(byAccess, { tagger: KEYS.access });
    await forge(altered, { tagger: KEYS.issues, signed: original, body: Buffer.from(JSON.stringify(altered)) });
    await forge(tagged, { tagger: KEYS.issues });
    await forge(signedByOlderRelay, { signer: KEYS.issues });
    await h.handled([tagged.event_id, signedByOlderRelay.event_id]);

    const forged = [byAgent, byAccess, altered];
    await eventually(async () => expect(await deadLetterCount()).toBe(forged.length));
    expect(await issueRow(tagged.data.issue.id)).toMatchObject({ title: 'tagged', revision: 1 });
    expect(await issueRow(signedByOlderRelay.data.issue.id)).toMatchObject({ title: 'signed', revision: 1 });
    for (const e of forged) expect(await issueRow(Number(e.aggregate.id))).toBeUndefined();
    expect(refusedLines(forged.map((e) => e.event_id)).map((l) => [l.eventId, l.reason, l.claimedSigner])).toEqual([
      [byAgent.event_id, 'wrong_source', 'agent'],
      [byAccess.event_id, 'wrong_source', 'access'],
      [altered.event_id, 'bad_signature', 'issues'],
    ]);
    expect((await drainDeadLetters()).sort()).toEqual(forged.map((e) => e.event_id).sort());
  });
});

describe('events that contradict the workspaces the replica holds', () => {
  test('when an event moves a queue or an issue to another workspace, names a queue of another workspace, or claims a comment of another issue, then it is dead-lettered at once and not applied', async () => {
    const [a, b] = [h.workspace(), h.workspace()];
    const queueA = queueState(a.id, 'WSA');
    const queueB = queueState(b.id, 'WSB');
    const issueA = issueState(queueA, { title: 'in A' });
    const otherA = issueState(queueA, { title: 'other in A' });
    const commentId = newId();
    const at = new Date().toISOString();
    const setup = [
      event('queue.created', a.id, queueA.id, 1, { queue: queueA }),
      event('queue.created', b.id, queueB.id, 1, { queue: queueB }),
      event('issue.created', a.id, issueA.id, 1, { issue: issueA }),
      event('issue.created', a.id, otherA.id, 1, { issue: otherA }),
      event('comment.added', a.id, issueA.id, 2, { issue: issueA, comment: { id: commentId, author_id: 1, body: 'held on issueA', created_at: at } }),
    ];
    await h.publish(setup);
    await h.handled(setup.map((e) => e.event_id));

    // An issue of workspace B in a queue of workspace A.
    const intruder = issueState(queueA, { workspace_id: b.id, title: 'intruder' });
    const intoForeignQueue = event('issue.created', b.id, intruder.id, 1, { issue: intruder });
    // Issue A moved to workspace B (and a queue of B).
    const movedIssue = event('issue.updated', b.id, issueA.id, 3, { issue: { ...issueA, workspace_id: b.id, queue_id: queueB.id, title: 'moved' }, changes: [] });
    // Queue A moved to workspace B.
    const movedQueue = event('queue.updated', b.id, queueA.id, 2, { queue: { ...queueA, workspace_id: b.id, name: 'moved' } });
    // A comment of issue A claimed by the other issue (to fill its text into another issue's search).
    const stolenComment = event('comment.added', a.id, otherA.id, 2, {
      issue: otherA,
      comment: { id: commentId, author_id: 1, body: 'stolen', created_at: at },
    });
    // The envelope says A, the state says B.
    const mixed = event('issue.updated', a.id, otherA.id, 3, { issue: { ...otherA, title: 'mixed' }, changes: [] });
    const mixedState = { ...mixed, data: { ...mixed.data, issue: { ...mixed.data.issue, workspace_id: b.id } } } as EventEnvelope;
    // A parent issue of another workspace.
    const child = issueState(queueB, { parent_id: issueA.id, title: 'child in B' });
    const foreignParent = event('issue.created', b.id, child.id, 1, { issue: child });
    const refused = [intoForeignQueue, movedIssue, movedQueue, stolenComment, mixedState, foreignParent];
    const fine = event('issue.updated', a.id, otherA.id, 4, { issue: { ...otherA, title: 'still applies' }, changes: [] });

    await h.publish([...refused, fine]);
    await h.handled([...refused, fine].map((e) => e.event_id));
    await eventually(async () => expect(await deadLetterCount()).toBe(refused.length));

    // Handled concurrently (prefetch): compared in event id order.
    const byId = (rows: unknown[][]) => rows.sort((x, y) => String(x[1]).localeCompare(String(y[1])));
    expect(byId(refusedLines(refused.map((e) => e.event_id)).map((l) => [l.msg, l.eventId, l.rule]))).toEqual(
      byId([
        [intoForeignQueue, 'issue_queue_workspace'],
        [movedIssue, 'issue_workspace'],
        [movedQueue, 'queue_workspace'],
        [stolenComment, 'comment_issue'],
        [mixedState, 'state_workspace'],
        [foreignParent, 'parent_workspace'],
      ].map(([e, rule]) => ['event refused by the handler; dead-lettered', (e as EventEnvelope).event_id, rule])),
    );
    // Refused at once: never retried.
    expect(h.logs.filter((l) => refused.some((e) => e.event_id === l.eventId) && /will retry|every attempt/.test(l.msg))).toEqual([]);

    expect(await issueRow(intruder.id)).toBeUndefined();
    expect(await issueRow(child.id)).toBeUndefined();
    expect(await issueRow(issueA.id)).toMatchObject({ workspace_id: a.id, queue_id: queueA.id, title: 'in A', revision: 2 });
    expect(await queueRow(queueA.id)).toMatchObject({ workspace_id: a.id, name: queueA.name, revision: 1 });
    expect(await issueRow(otherA.id)).toMatchObject({ workspace_id: a.id, title: 'still applies', revision: 4 });
    expect(await h.schema.query('SELECT issue_id, body FROM comments WHERE id = $1', [commentId])).toEqual([{ issue_id: issueA.id, body: 'held on issueA' }]);

    expect((await drainDeadLetters()).sort()).toEqual(refused.map((e) => e.event_id).sort());
  });
});

describe('the dead-letter queue', () => {
  test('when more than 10,000 messages are dead-lettered, then it holds the newest 10,000 and the gauge says so', async () => {
    const dlx = `${h.amqp!.exchange}.dlx`;
    for (let i = 0; i < 10_050; i += 1) channel.publish(dlx, h.queue, Buffer.from(`dead ${i}`), { messageId: `dead-${i}` });
    await channel.waitForConfirms();

    await eventually(async () => expect(await deadLetterCount()).toBe(10_000));
    expect((await metric('tracker_consumer_dead_letter_messages')).find((v) => v.labels.queue === h.queue)?.value).toBe(10_000);
    const oldest = await channel.get(dlq(), { noAck: true });
    expect(oldest && oldest.properties.messageId).toBe('dead-50');
    await channel.purgeQueue(dlq());
  }, 60_000);
});
