/**
 * The inspector relay's port when none is given. Not 8080, the Stately relay's own default,
 * because Restate's ingress (docs/distributed.md) and many local dev servers listen there.
 */
export const DEFAULT_INSPECTOR_PORT = 4242;
