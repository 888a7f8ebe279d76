import type { Link } from '../../../src/transport/link.ts';

/** Collects everything a link receives; `waitFor(n)` resolves once n bytes arrived. */
export function collect(link: Link): { bytes: () => number[]; waitFor: (n: number) => Promise<number[]> } {
  const got: number[] = [];
  const waiters: { n: number; resolve: (b: number[]) => void }[] = [];
  link.onData((chunk) => {
    got.push(...chunk);
    for (const w of [...waiters]) {
      if (got.length >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve([...got]);
      }
    }
  });
  return {
    bytes: () => [...got],
    waitFor: (n) =>
      got.length >= n ? Promise.resolve([...got]) : new Promise((resolve) => waiters.push({ n, resolve })),
  };
}

/** Resolves with the close error (or undefined) the next time the link closes. */
export function nextClose(link: Link): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const off = link.onClose((err) => {
      off();
      resolve(err);
    });
  });
}
