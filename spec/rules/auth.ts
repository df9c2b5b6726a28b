/** Rules of the Authentication part: the bearer key, the version header, and tenant isolation. */
import type { RuleDef } from './rule.ts';

const AUTHENTICATION = 'Authentication';
/** Status and error codes are a gap of the Errors part ("not shown"); reference rules filling it sit there. */
const ERRORS = 'Errors';

export const authRules = [
  {
    // MUST although rejecting is the observable: "every endpoint requires" is a statement about the
    // server, unlike a body field marked required (decision 3 makes rejecting those SHOULD).
    id: 'AUTH-BEARER-REQUIRED',
    level: 'MUST',
    provenance: 'documented',
    part: 'auth',
    section: AUTHENTICATION,
    quote: 'Every endpoint requires the HTTP header `Authorization: Bearer <API_KEY>`',
    operations: [],
  },
  {
    // Stated outright: the token is the caller's secret key, so any other token does not authenticate.
    id: 'AUTH-SECRET-KEY',
    level: 'MUST',
    provenance: 'documented',
    part: 'auth',
    section: AUTHENTICATION,
    quote: "where the token is the caller's secret key",
    operations: [],
  },
  {
    id: 'AUTH-BEARER-FORMAT-JWT',
    level: 'MUST',
    provenance: 'documented',
    part: 'auth',
    section: AUTHENTICATION,
    quote: 'The security scheme is HTTP bearer with declared bearer format JWT.',
    operations: [],
    excluded:
      'The declared bearer format is cosmetic: secret keys are opaque strings (reference §2), so no request can tell a JWT format from another.',
  },
  {
    id: 'AUTH-SERVER-ADDRESS',
    level: 'MUST',
    provenance: 'documented',
    part: 'auth',
    section: AUTHENTICATION,
    quote: 'The server address is `{base_url}`.',
    operations: [],
    excluded: 'The address is the deployment the suite is pointed at (BASE_URL); it is configuration, not behaviour.',
  },
  {
    id: 'AUTH-API-VERSION-HEADER',
    level: 'MUST',
    provenance: 'documented',
    part: 'auth',
    section: AUTHENTICATION,
    quote: 'Every request also carries the `x-api-version` header (see Versioning).',
    operations: [],
  },
  {
    id: 'AUTH-TENANT-ISOLATION',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'auth',
    section: AUTHENTICATION,
    quote:
      "A key sees only its own organisation and environment: objects created with another organisation's key, or in the other environment, read as not found and never appear in listings.",
    source: 'observed-behaviour §2',
    operations: [],
  },
  {
    id: 'AUTH-NO-KEY-CODE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'auth',
    section: ERRORS,
    quote: 'A request without an `Authorization: Bearer` header is refused with 401 and code `no_secret_key`.',
    source: 'exchanges/140-customers.get-no-authorization.json',
    operations: [],
  },
  {
    id: 'AUTH-UNKNOWN-KEY-CODE',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'auth',
    section: ERRORS,
    quote: 'A well-formed secret key that the service does not know is refused with 401 and code `invalid_secret_key`.',
    source: 'exchanges/141-customers.get-wrong-key.json',
    operations: [],
  },
] as const satisfies readonly RuleDef[];
