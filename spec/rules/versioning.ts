/** Rules of the Versioning part: the API version header and plan versions. */
import type { RuleDef } from './rule.ts';

const VERSIONING = 'Versioning';

export const versioningRules = [
  {
    id: 'VER-HEADER-REQUIRED',
    level: 'MUST',
    provenance: 'documented',
    part: 'versioning',
    section: VERSIONING,
    quote: 'The header `x-api-version` (string) is required on every request',
    operations: [],
    excluded:
      'The same sentence gives the header a default, so a server serves a request without it with the default (VER-HEADER-DEFAULT, DESIGN decision 4); the requirement binds clients, and the suite always sends the header.',
  },
  {
    // The same sentence makes the header required and gives it a default, so a server may refuse a
    // request without it (a clear 4xx) or serve it as 2.4.0; serving it differently is the violation.
    id: 'VER-HEADER-DEFAULT',
    level: 'MUST',
    provenance: 'documented',
    part: 'versioning',
    section: VERSIONING,
    quote: 'its default is `2.4.0`',
    operations: [],
  },
  {
    id: 'VER-HEADER-DEFAULT-SERVED',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'versioning',
    section: VERSIONING,
    quote: 'A request without `x-api-version` is served with a default version rather than refused (the header is optional).',
    source: 'observed-behaviour §6',
    operations: [],
  },
  {
    id: 'VER-2-4-0-ACCEPTED',
    level: 'MUST',
    provenance: 'documented',
    part: 'versioning',
    section: VERSIONING,
    quote: '`2.4.0`, which is also the version of the interface description.',
    operations: [],
  },
  {
    id: 'VER-INVALID-VERSION',
    level: 'SHOULD',
    provenance: 'reference',
    part: 'versioning',
    section: VERSIONING,
    quote: 'An `x-api-version` that is not a version the service knows (e.g. `9.9.9`) is refused with 400 and code `invalid_api_version`.',
    source: 'exchanges/146-customers.get-api-version-9.9.9.json',
    operations: [],
  },
  {
    id: 'VER-PLAN-VERSION-INCREASES',
    level: 'MUST',
    provenance: 'documented',
    part: 'versioning',
    section: VERSIONING,
    quote: 'Plans are versioned: `version` increases when plan configuration changes',
    operations: ['plans.create', 'plans.get', 'plans.update'],
  },
  {
    id: 'VER-PLAN-SLUG-DEFAULT',
    level: 'MUST',
    provenance: 'documented',
    part: 'versioning',
    section: VERSIONING,
    quote: '`version_slug` defaults to `v{n}`',
    operations: ['plans.create', 'plans.get', 'plans.update'],
    fields: ['version_slug'],
  },
  {
    id: 'VER-PLAN-ONE-ACTIVE',
    level: 'MUST',
    provenance: 'documented',
    part: 'versioning',
    section: VERSIONING,
    quote: 'at most one version is active',
    operations: ['plans.get', 'plans.update', 'plans.list'],
    fields: ['active', 'list.*.active'],
  },
  {
    id: 'VER-BASE-VARIANT-DEPRECATED',
    level: 'MUST',
    provenance: 'documented',
    part: 'versioning',
    section: VERSIONING,
    quote: '`baseVariantId` on a plan is deprecated in favour of `variant_details.base_plan_id`.',
    operations: ['plans.create', 'plans.get'],
    excluded:
      "Deprecation is a statement about the documentation's future, not behaviour; the field's presence on a plan is checked by PLAN-SHAPE.",
  },
  {
    id: 'VER-OTHER-VERSIONS',
    level: 'MUST',
    provenance: 'documented',
    part: 'versioning',
    section: VERSIONING,
    quote: 'Other API versions and their differences: not shown.',
    operations: [],
    excluded: 'No other version is described, so there is nothing to assert; the suite sends API_VERSION (default `2.4.0`).',
  },
] as const satisfies readonly RuleDef[];
