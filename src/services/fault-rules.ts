/** Fault rules of a merchant: kept on the merchant record, so they survive a restart. */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../domain/codes.js';
import { drawRule, parseFaults, ruleMatches } from '../domain/faults.js';
import type { Fault, FaultRule } from '../domain/faults.js';
import type { Merchant } from '../domain/merchant.js';
import type { Store } from '../store/store.js';
import type { SandboxClock } from './clock.js';

export interface FaultRuleInput {
  readonly method: string;
  readonly path: string;
  readonly fault: string;
  readonly probability: number;
  readonly times: number | null;
  readonly seed: number | undefined;
}

export const MAX_RULES_PER_MERCHANT = 50;

export class FaultRuleService {
  constructor(
    private readonly store: Store,
    private readonly clock: SandboxClock,
    private readonly defaultSeed: number,
  ) {}

  async add(merchant: Merchant, input: FaultRuleInput): Promise<FaultRule> {
    parseFaults(input.fault, 'fault');
    const current = await this.fresh(merchant);
    const rules = current.faultRules ?? [];
    if (rules.length >= MAX_RULES_PER_MERCHANT) {
      throw ApiError.refused(`This merchant has ${MAX_RULES_PER_MERCHANT} fault rules, the most allowed: delete some with DELETE /sandbox/v1/faults/{id}.`);
    }
    const rule: FaultRule = {
      id: `flt_${randomBytes(9).toString('base64url')}`,
      match: { method: input.method.toUpperCase(), path: input.path },
      fault: input.fault,
      probability: input.probability,
      timesLeft: input.times,
      seed: input.seed ?? this.defaultSeed,
      matched: 0,
      fired: 0,
      createdAt: this.clock.real(),
    };
    await this.store.saveMerchant({ ...current, faultRules: [...rules, rule] });
    return rule;
  }

  async list(merchant: Merchant): Promise<readonly FaultRule[]> {
    return (await this.fresh(merchant)).faultRules ?? [];
  }

  /** Deletes one rule, or every rule when `id` is undefined; answers how many went. */
  async remove(merchant: Merchant, id?: string): Promise<number> {
    const current = await this.fresh(merchant);
    const rules = current.faultRules ?? [];
    const kept = id === undefined ? [] : rules.filter((r) => r.id !== id);
    if (id !== undefined && kept.length === rules.length) {
      throw ApiError.notFound(`No fault rule ${JSON.stringify(id)} for this merchant: GET /sandbox/v1/faults lists them.`);
    }
    if (kept.length !== rules.length) await this.store.saveMerchant({ ...current, faultRules: kept });
    return rules.length - kept.length;
  }

  /** The faults that fire for this request; counts the draw on every matching rule. */
  async draw(merchant: Merchant, method: string, path: string): Promise<Fault[]> {
    if (!merchant.faultRules?.length) return [];
    const current = await this.fresh(merchant);
    const rules = current.faultRules ?? [];
    const faults: Fault[] = [];
    let changed = false;
    const next = rules.map((rule) => {
      if (!ruleMatches(rule, method, path)) return rule;
      changed = true;
      const draw = drawRule(rule);
      if (draw.fires) faults.push(...parseFaults(rule.fault, 'fault'));
      return draw.next;
    });
    if (changed) await this.store.saveMerchant({ ...current, faultRules: next });
    return faults;
  }

  async clear(merchant: Merchant): Promise<void> {
    const current = await this.fresh(merchant);
    if (current.faultRules?.length) await this.store.saveMerchant({ ...current, faultRules: [] });
  }

  private async fresh(merchant: Merchant): Promise<Merchant> {
    return (await this.store.merchant(merchant.payeeId)) ?? merchant;
  }
}
