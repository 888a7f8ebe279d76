/**
 * The Devices page's network filter (from two networks on): null = every network. A
 * control beside the search picks it; the table applies it only while there are several.
 */
import { signal } from '@preact/signals';

export const networkFilter = signal<number | null>(null);
