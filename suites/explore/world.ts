/**
 * What the generators know of a program's world: everything the model said exists. Apart from
 * lockstep.ts so that what reads it (leeway.ts, the generators) does not import the lockstep run.
 */
export interface FeatureInfo {
  readonly id: string;
  readonly type: 'boolean' | 'metered' | 'credit_system' | 'ai_credit_system';
  readonly consumable: boolean;
  readonly eventNames: readonly string[];
  /** Credit systems: the metered features they price. */
  readonly covers: readonly string[];
}

export interface ItemInfo {
  readonly featureId: string;
  readonly included: number;
  readonly unlimited: boolean;
  readonly resets: boolean;
  readonly billing?: 'usage_based' | 'prepaid';
  readonly maxPurchase?: number | null;
}

export interface PlanInfo {
  readonly id: string;
  readonly version: number;
  readonly addOn: boolean;
  readonly group: string | null;
  readonly archived: boolean;
  readonly paid: boolean;
  readonly oneOff: boolean;
  readonly trial: boolean;
  readonly autoEnable: boolean;
  readonly items: readonly ItemInfo[];
  readonly licenses: readonly { readonly licensePlanId: string; readonly included: number }[];
}

export interface EntityInfo {
  readonly id: string;
  readonly customerId: string;
  readonly featureId: string;
}

export interface LockInfo {
  readonly lockId: string;
  readonly customerId: string;
  readonly featureId?: string;
  readonly entityId?: string;
}

/** What the generators know of the program's world: everything the model said exists. */
export class WorldState {
  features: FeatureInfo[] = [];
  plans: PlanInfo[] = [];
  customers: string[] = [];
  entities: EntityInfo[] = [];
  locks: LockInfo[] = [];
  rewards: string[] = [];
  programs: { readonly id: string; readonly redeemOn: string }[] = [];
  /** What the model says each subject was given: the plans attached and the features they grant. */
  holdings: { readonly customerId: string; readonly entityId?: string; readonly planId: string; readonly featureIds: readonly string[] }[] = [];
  /** Two groups of this program, for mutually exclusive plans. */
  groups: readonly string[] = [];
  /** An event name several of this program's features may declare. */
  eventName = '';
  /** Future instants the model's answers named (resets, period ends, trial ends, expiries), for clock moves that land on them. */
  instants = new Set<number>();
  /** The program wrote in its organisation's other environment (live): a clock move moves that environment's clock too. */
  live = false;
  /** The model's clock. */
  now: number;
  constructor(now: number) {
    this.now = now;
  }

  /** Customers holding a plan that offers licenses. */
  poolHolders(): string[] {
    const offering = new Set(this.plans.filter((p) => p.licenses.length > 0).map((p) => p.id));
    return [...new Set(this.holdings.filter((h) => h.entityId === undefined && offering.has(h.planId)).map((h) => h.customerId))];
  }

  upcoming(): number[] {
    return [...this.instants].filter((at) => at > this.now).sort((a, b) => a - b);
  }
}
