import { describe, expect, it } from 'vitest';
import { FreshIds, markNow, type IdsRead } from './fresh-ids';

/** A store whose reads are counted, on a clock the test moves (sleep advances it). */
function store(initial: string[]) {
  const rows = new Set(initial);
  let clock = 1_000_000;
  const reads: { full: boolean; since: number }[] = [];
  const ids = new FreshIds({
    read: async (full, since): Promise<IdsRead> => {
      reads.push({ full, since });
      return { ids: [...rows], overflow: false };
    },
    now: () => clock,
    // Waiting out the gap moves the clock; looking again while a read is in flight takes no time here.
    sleep: async (ms) => {
      if (ms > 100) clock += ms;
    },
  });
  return { ids, rows, reads, tick: (ms: number) => (clock += ms) };
}

describe('ids kept in the isolate, read again at most once a gap', () => {
  it('a thousand misses asked together cost one read', async () => {
    const s = store(['a']);
    const mark = markNow();
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => s.ids.has(`x${i}`, mark)));
    expect(answers.every((a) => a === false)).toBe(true);
    expect(s.reads).toHaveLength(1);
    expect(await s.ids.has('a', markNow())).toBe(true);
    expect(s.reads).toHaveLength(1);
  });

  it('misses asked after a read wait for the next one, a gap after it: an id written meanwhile is found', async () => {
    const s = store([]);
    expect(await s.ids.has('late', markNow())).toBe(false);
    s.rows.add('late');
    const mark = markNow();
    const [late, other] = await Promise.all([s.ids.has('late', mark), s.ids.has('never', mark)]);
    expect({ late, other }).toEqual({ late: true, other: false });
    expect(s.reads.map((r) => r.full)).toEqual([true, false]);
    // The second read started a full gap after the first, and asks for what was written since the first started.
    expect(s.reads[1].since).toBe(1_000_000);
  });

  it('an id added through this isolate is found without a read', async () => {
    const s = store([]);
    s.ids.add('mine');
    expect(await s.ids.has('mine', markNow())).toBe(true);
    expect(s.reads).toHaveLength(0);
  });

  it("a read that fails is the caller's error, and the next question reads again", async () => {
    let fail = true;
    let clock = 0;
    const ids = new FreshIds({
      read: async () => {
        if (fail) throw new Error('D1 down');
        return { ids: ['t'], overflow: false };
      },
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    await expect(ids.has('t', markNow())).rejects.toThrow('D1 down');
    fail = false;
    expect(await ids.has('t', markNow())).toBe(true);
  });

  it('a set that overflowed answers that every id may exist', async () => {
    const ids = new FreshIds({ read: async () => ({ ids: [], overflow: true }), now: () => 0, sleep: async () => undefined });
    expect(await ids.has('anything', markNow())).toBe(true);
  });
});
