/**
 * The device table: sortable columns, search, multi-select (click, shift-click for a
 * range, header box for every row the filter shows). Only the rows in view (plus a few
 * above and below) are in the DOM, so 1 000 devices open, sort and scroll as fast as
 * 30. It is a grid of divs with table roles, not a <table>: each row has one fixed
 * height, sits absolutely at its index and is contained (device-table.css), so a row
 * scrolled into view costs its own layout and paint only. The filtered and sorted list
 * is a computed signal, recomputed only when its inputs change (not on a selection
 * click). Rows only re-render when their device object changes.
 */
import { computed, signal } from '@preact/signals';
import { Component } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { compareValues, matchesSearch, type SortDir } from '../format.ts';
import { changedAt, devices, effectNames, groupsById, nowS } from '../store.ts';
import type { Device } from '../types.ts';
import { viewportW } from '../common/viewport.ts';
import { thresholds } from '../common/battery.ts';
import { COL_CLASS, COLUMNS, colWidth, columnsFor, nameMinRem, networkName, type Column } from './columns.ts';
import { multiNetwork, networks } from '../networks/networks-store.ts';
import { networkFilter } from './network-filter.ts';
import { Row } from './DeviceRow.tsx';
import { groupFilter } from './Sidebar.tsx';
import { columnChoice } from './column-choice.ts';
import { links } from '../health/data.ts';
import { useLinks } from '../health/use-links.ts';
import './device-table.css';
import { FirstSteps } from '../common/FirstSteps.tsx';

export { openOptions } from './DeviceRow.tsx';

export const selection = signal<Set<string>>(new Set());
export const search = signal('');
export const sortKey = signal<string>('name');
export const sortDir = signal<SortDir>(1);

const groupName = (id: number): string => groupsById.value.get(id)?.name ?? `#${id}`;

/** The devices the group filter and the search show, sorted. */
export const visibleRows = computed<Device[]>(() => {
  const gf = groupFilter.value;
  // The network filter only counts while there are several (its control hides with one).
  const nf =
    multiNetwork.value && networks.value.some((n) => n.id === networkFilter.value)
      ? networkFilter.value
      : null;
  const q = search.value;
  const col = COLUMNS.find((c) => c.key === sortKey.value) ?? COLUMNS[0]!;
  const dir = sortDir.value;
  // Sort keys computed once per row, not once per comparison.
  const keyed = devices.value
    .filter(
      (d) =>
        (gf === null || d.groupId === gf) &&
        (nf === null || d.network_id === nf) &&
        matchesSearch(d, groupName(d.groupId), q),
    )
    .map((d) => ({ d, k: col.value(d) }));
  keyed.sort(
    (a, b) => dir * compareValues(a.k, b.k) || (a.d.addr < b.d.addr ? -1 : a.d.addr > b.d.addr ? 1 : 0),
  );
  return keyed.map((x) => x.d);
});

export const visibleDevices = (): Device[] => visibleRows.value;

let lastClicked: string | null = null;
/** The rows as last rendered (rows keep their first toggle callback; it reads this). */
let currentRows: Device[] = [];

function toggle(addr: string, shift: boolean): void {
  const rows = currentRows;
  const next = new Set(selection.value);
  if (shift && lastClicked) {
    const a = rows.findIndex((d) => d.addr === lastClicked);
    const b = rows.findIndex((d) => d.addr === addr);
    if (a >= 0 && b >= 0) {
      const on = !next.has(addr);
      for (let i = Math.min(a, b); i <= Math.max(a, b); i++) {
        const r = rows[i]!;
        if (on) next.add(r.addr);
        else next.delete(r.addr);
      }
      selection.value = next;
      lastClicked = addr;
      return;
    }
  }
  if (next.has(addr)) next.delete(addr);
  else next.add(addr);
  lastClicked = addr;
  selection.value = next;
}

/**
 * Rows drawn above and below the visible ones (keyboard focus and fast flicks). The
 * window follows the scroll row by row: a slow scroll mounts a row or two per frame
 * instead of a batch of five every few frames, so the work is spread over the frames.
 */
const OVERSCAN = 4;

let rowHCache: { width: number; px: number } | null = null;

/**
 * The row height in px from the CSS (--row-h on the root; a media query makes it taller
 * for touch), read once per window width: a style read, no layout, and no row needed.
 */
function rowHeight(width: number): number {
  if (rowHCache?.width === width) return rowHCache.px;
  const root = document.documentElement;
  const raw = getComputedStyle(root).getPropertyValue('--row-h').trim();
  const n = parseFloat(raw);
  // A browser without registered properties hands back the declared "2.15rem".
  const px = raw.endsWith('rem') ? n * parseFloat(getComputedStyle(root).fontSize) : n;
  rowHCache = { width, px: Number.isFinite(px) && px > 0 ? px : 34 };
  return rowHCache.px;
}

/**
 * First row index to draw and the box height, following the scroll box. Until the box has
 * been measured (its observer's first report, after the first layout and before the first
 * paint) the height is the window's, which the box never exceeds.
 */
function useWindow(rowH: number) {
  const wrap = useRef<HTMLDivElement>(null);
  const [first, setFirst] = useState(0);
  const [viewH, setViewH] = useState<number | null>(null);
  const rowHRef = useRef(rowH);
  rowHRef.current = rowH;
  useEffect(() => {
    const el = wrap.current;
    if (!el) return;
    let frame = 0;
    const update = () => {
      frame = 0;
      const top = Math.max(0, Math.floor(el.scrollTop / rowHRef.current) - OVERSCAN);
      setFirst(top);
    };
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    const ro = new ResizeObserver(() => setViewH(el.clientHeight));
    ro.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      ro.disconnect();
      if (frame) cancelAnimationFrame(frame);
    };
  }, []);
  return { wrap, first, viewH };
}

/** Every row the filter shows selected, or none of them: the header box. */
function toggleAll(allSelected: boolean): void {
  const next = new Set(selection.value);
  for (const d of currentRows) {
    if (allSelected) next.delete(d.addr);
    else next.add(d.addr);
  }
  selection.value = next;
}

function sortBy(key: string): void {
  if (sortKey.value === key) sortDir.value = sortDir.value === 1 ? -1 : 1;
  else {
    sortKey.value = key;
    sortDir.value = 1;
  }
}

interface HeadProps {
  cols: Column[];
  colKeys: string;
  allSelected: boolean;
  sort: string;
  dir: SortDir;
}

/**
 * The header row. It redraws only when the columns, the sort or the header box change:
 * the table redraws on every scrolled frame, and rebuilding the header's cells each time
 * was garbage the frame's budget paid for.
 */
class TableHead extends Component<HeadProps> {
  override shouldComponentUpdate(n: HeadProps): boolean {
    const p = this.props;
    return n.colKeys !== p.colKeys || n.allSelected !== p.allSelected || n.sort !== p.sort || n.dir !== p.dir;
  }
  override render({ cols, allSelected, sort, dir }: HeadProps) {
    return (
      <div class="dt-row dt-head" role="row" aria-rowindex={1}>
        <div class="chk" role="columnheader">
          <input
            type="checkbox"
            checked={allSelected}
            aria-label="Select all visible devices"
            title="Select every device the filter shows"
            onClick={() => toggleAll(allSelected)}
          />
        </div>
        {cols.map((c) => (
          <div
            key={c.key}
            role="columnheader"
            class={COL_CLASS.get(c.key)}
            aria-sort={sort === c.key ? (dir === 1 ? 'ascending' : 'descending') : 'none'}
          >
            <button
              type="button"
              class="sort"
              title={c.title ? `${c.title} — click to sort` : `Sort by ${c.label}`}
              onClick={() => sortBy(c.key)}
            >
              {c.label}
              {sort === c.key ? (dir === 1 ? ' ▲' : ' ▼') : ''}
            </button>
          </div>
        ))}
      </div>
    );
  }
}

export function DeviceTable({ rows }: { rows: Device[] }) {
  const sel = selection.value;
  const now = nowS.value;
  const flashes = changedAt.value;
  const warnPerCell = thresholds.value.warnPerCell;
  const names = effectNames.value;
  const byId = groupsById.value;
  const cols = columnsFor(viewportW.value, columnChoice.value);
  const showFails = cols.some((c) => c.key === 'fail');
  useLinks(showFails);
  const fails = showFails ? links.value : null;
  const colKeys = cols.map((c) => c.key).join(',');
  const rowH = rowHeight(viewportW.value);
  const { wrap, first: rawFirst, viewH } = useWindow(rowH);
  currentRows = rows;
  // The first render draws no overscan: the rows of a window-high box are more than the
  // box shows, and every row drawn is style, layout and script before the first paint
  // (35 rows at 1280×800 where 16 show). The overscan comes with the box's measure.
  const count =
    viewH === null
      ? Math.ceil((typeof innerHeight === 'number' ? innerHeight : 800) / rowH)
      : Math.ceil(viewH / rowH) + 2 * OVERSCAN;
  const first = Math.min(rawFirst, Math.max(0, rows.length - count));
  const shown = rows.slice(first, first + count);
  const allSelected = rows.length > 0 && rows.every((d) => sel.has(d.addr));
  const nowMs = Date.now();
  // The Name column takes what the fixed columns leave, but never less than 7 rem (5.5 on
  // a phone): below that the table scrolls sideways instead.
  const vw = viewportW.value;
  const minRem = cols.reduce((n, c) => n + (c.key === 'name' ? nameMinRem(vw) : (colWidth(c, vw) ?? 7)), 2.2);
  return (
    <div class="table-wrap" ref={wrap}>
      <div
        class="device-grid"
        role="table"
        aria-label="Devices"
        aria-rowcount={rows.length + 1}
        data-testid="device-table"
        style={{ minWidth: `${minRem}rem` }}
      >
        <TableHead
          cols={cols}
          colKeys={colKeys}
          allSelected={allSelected}
          sort={sortKey.value}
          dir={sortDir.value}
        />
        <div class="dt-body" role="rowgroup" style={{ height: `${rows.length * rowH}px` }}>
          {shown.map((d, i) => (
            <Row
              key={d.addr}
              d={d}
              index={first + i}
              top={(first + i) * rowH}
              selected={sel.has(d.addr)}
              groupLabel={byId.get(d.groupId)?.name ?? '?'}
              networkLabel={networkName(d)}
              effect={names.get(d.effectId) ?? String(d.effectId)}
              now={now}
              flash={nowMs - (flashes.get(d.addr) ?? 0) < 1000}
              warnPerCell={warnPerCell}
              failures={fails ? (fails.get(d.addr)?.failures ?? 0) : undefined}
              colKeys={colKeys}
              onToggle={toggle}
            />
          ))}
        </div>
      </div>
      {rows.length === 0 &&
        (devices.value.length === 0 ? (
          // A new operator's first screen: what to do, in order.
          <div class="empty">
            <p class="muted">No devices yet.</p>
            <FirstSteps compact />
          </div>
        ) : (
          <p class="empty muted">No devices here. Use Discover to find nodes.</p>
        ))}
    </div>
  );
}
