/** The window's width as a signal (column sets and layouts that JS must know about). */
import { signal } from '@preact/signals';

export const viewportW = signal(typeof innerWidth === 'number' ? innerWidth : 1280);

let frame = 0;
addEventListener('resize', () => {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    viewportW.value = innerWidth;
  });
});
