/** The one-line text of anything thrown: an Error's message, anything else as a string. */
export const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
