import { eventFrame, KEEP_ALIVE_FRAME, retryFrame } from '../src/domain/event-stream.rules';
import { streamSlots } from '../src/domain/stream-slots';

describe('the stream`s frames', () => {
  test('an event is id, event and data on one line each, then a blank line; a JSON text with line breaks between its tokens stays the same JSON on one line', () => {
    expect(eventFrame('c1_MQ', 'issue.created', '{"id":"a"}')).toBe('id: c1_MQ\nevent: issue.created\ndata: {"id":"a"}\n\n');
    const pretty = JSON.stringify({ id: 'a', data: { text: 'two\nlines' } }, null, 2);
    const frame = eventFrame('c1_Mg', 'comment.added', pretty);
    expect(frame.split('\n')).toHaveLength(5);
    expect(JSON.parse(frame.split('\n')[2]!.slice('data: '.length))).toEqual(JSON.parse(pretty));
    expect([retryFrame(2000), KEEP_ALIVE_FRAME]).toEqual(['retry: 2000\n\n', ': keep-alive\n\n']);
  });
});

describe('stream slots', () => {
  test('a user holds at most perUser, the replica at most maxOpen; a release frees one, twice frees one', () => {
    const slots = streamSlots({ maxOpen: 3, perUser: 2 });
    const [a1, a2] = [slots.take('1:1'), slots.take('1:1')];
    expect(slots.take('1:1')).toBe('user_full');
    const b1 = slots.take('1:2');
    expect(slots.take('1:3')).toBe('replica_full');
    expect(slots.open()).toBe(3);
    for (const slot of [a1, a2, b1]) expect(typeof slot).toBe('object');
    (a1 as Exclude<typeof a1, string>).release();
    (a1 as Exclude<typeof a1, string>).release();
    expect(slots.open()).toBe(2);
    expect(typeof slots.take('1:1')).toBe('object');
    expect(slots.take('1:3')).toBe('replica_full');
  });

  test('ending all aborts every open slot`s signal and refuses new ones', () => {
    const slots = streamSlots({ maxOpen: 10, perUser: 10 });
    const slot = slots.take('1:1') as Exclude<ReturnType<typeof slots.take>, string>;
    slots.endAll();
    expect(slot.signal.aborted).toBe(true);
    expect(slots.take('1:1')).toBe('closing');
  });
});
