/**
 * First steps for a new operator: on an empty device list and at the top of the Help
 * page. Says what to press, in order, with the names the buttons carry.
 */
export function FirstSteps({ compact = false }: { compact?: boolean }) {
  return (
    <div class={`first-steps${compact ? ' compact' : ''}`} data-testid="first-steps">
      {!compact && <h2>First steps</h2>}
      <ol>
        <li>
          <strong>Discover…</strong> (Devices page) finds the nodes in radio range; each appears here as a
          row. Name one by clicking ✎; click its name to flash its LEDs.
        </li>
        <li>
          <strong>Put them in groups</strong>: make a group with <strong>+</strong> beside “Groups”, tick the
          devices, pick the group in <strong>Move to</strong> and press <strong>Move</strong>.
        </li>
        <li>
          <strong>Build a scene</strong> on the Scenes page (effects per group, delays, offsets), save it and
          run it — or pin it to the <strong>Race</strong> panel.
        </li>
      </ol>
      <p class="muted">
        <strong>■ Blackout</strong> (key <kbd>b</kbd>) switches every node off at any moment, from any page
        and any open dialog.
      </p>
    </div>
  );
}
