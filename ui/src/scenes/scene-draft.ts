/**
 * The scene being edited lives outside the Scenes page, so switching to Devices and back
 * keeps unsaved edits (the page unmounts, the draft does not), the nav can mark them, and
 * closing the tab with them asks first.
 */
import { computed, signal } from '@preact/signals';
import type { Draft } from './SceneConflict.tsx';

export const EMPTY_DRAFT: Draft = {
  key: null,
  label: 'New scene',
  actions: [],
  stop_on_error: true,
  networks: null,
};

export const sceneDraft = signal<Draft>(EMPTY_DRAFT);
/** JSON of the stored version the draft is measured against. */
export const sceneSaved = signal(JSON.stringify(EMPTY_DRAFT));
export const sceneDirty = computed(() => JSON.stringify(sceneDraft.value) !== sceneSaved.value);

addEventListener('beforeunload', (e) => {
  if (!sceneDirty.value) return;
  e.preventDefault();
  // Older browsers need returnValue set to show the prompt.
  e.returnValue = '';
});
