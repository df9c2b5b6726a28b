/**
 * The parts of interface.md a rule or an operation belongs to (the fake's domain and the suite's
 * scenarios are laid out by them). Its own module, below both the rule catalogue and the operation
 * table, because each of those reads the other's names.
 */
export type Part =
  | 'conventions'
  | 'auth'
  | 'versioning'
  | 'errors'
  | 'states'
  | 'licenses'
  | 'listings'
  | 'entities'
  | 'preview'
  | 'plans'
  | 'features'
  | 'balances'
  | 'referrals'
  | 'customers'
  | 'billing'
  | 'events';
