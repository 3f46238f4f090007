/** Fault rules of a merchant: kept on the merchant record, so they survive a restart. */
import { SandboxError } from '../domain/errors.js';
import { drawRule, parseFaults, ruleMatches } from '../domain/faults.js';
import type { Fault, FaultRule } from '../domain/faults.js';
import { newFaultRuleId } from '../domain/ids.js';
import { compiledGlob } from '../domain/path-glob.js';
import type { Merchant } from '../domain/merchant.js';
import type { SandboxClock } from './clock.js';
import type { MerchantService } from './merchants.js';

export interface FaultRuleInput {
  readonly method: string;
  readonly path: string;
  readonly fault: string;
  readonly probability: number;
  readonly times: number | null;
  readonly seed: number | undefined;
}

/** The faults a request drew, and the rules that fired them (to give back what was not applied). */
export interface FaultDraw {
  readonly faults: readonly Fault[];
  readonly fired: readonly { readonly ruleId: string; readonly faults: readonly Fault[] }[];
}

export const MAX_RULES_PER_MERCHANT = 50;

const NO_DRAW: FaultDraw = { faults: [], fired: [] };

export class FaultRuleService {
  /** Per rule, matches that fired nothing and are not written yet (in this instance). */
  private readonly unsaved = new Map<string, number>();

  constructor(
    private readonly merchants: MerchantService,
    private readonly clock: SandboxClock,
    private readonly defaultSeed: number,
  ) {}

  add(merchant: Merchant, input: FaultRuleInput): Promise<FaultRule> {
    parseFaults(input.fault, 'fault');
    // Compiled here, once: every public request of the merchant is matched against it.
    compiledGlob(input.path);
    return this.merchants.update(merchant.payeeId, (current) => {
      const rules = current.faultRules ?? [];
      if (rules.length >= MAX_RULES_PER_MERCHANT) {
        throw SandboxError.refused(`This merchant has ${MAX_RULES_PER_MERCHANT} fault rules, the most allowed: delete some with DELETE /sandbox/v1/faults/{id}.`);
      }
      const rule: FaultRule = {
        id: newFaultRuleId(),
        match: { method: input.method.toUpperCase(), path: input.path },
        fault: input.fault,
        probability: input.probability,
        timesLeft: input.times,
        seed: input.seed ?? this.defaultSeed,
        matched: 0,
        fired: 0,
        createdAt: this.clock.real(),
      };
      return [{ ...current, faultRules: [...rules, rule] }, rule] as const;
    });
  }

  async list(merchant: Merchant): Promise<readonly FaultRule[]> {
    return ((await this.merchants.current(merchant)).faultRules ?? []).map((rule) => this.withUnsaved(rule));
  }

  /** The rule with the matches this instance counted but has not written yet. */
  private withUnsaved(rule: FaultRule): FaultRule {
    const unsaved = this.unsaved.get(rule.id);
    return unsaved ? { ...rule, matched: rule.matched + unsaved } : rule;
  }

  /** Deletes one rule, or every rule when `id` is undefined; answers how many went. */
  remove(merchant: Merchant, id?: string): Promise<number> {
    return this.merchants.update(merchant.payeeId, (current) => {
      const rules = current.faultRules ?? [];
      const kept = id === undefined ? [] : rules.filter((r) => r.id !== id);
      if (id !== undefined && kept.length === rules.length) {
        throw SandboxError.notFound(`No fault rule ${JSON.stringify(id.slice(0, 64))} for this merchant: GET /sandbox/v1/faults lists them.`);
      }
      return [kept.length === rules.length ? null : { ...current, faultRules: kept }, rules.length - kept.length] as const;
    });
  }

  /**
   * The faults that fire for this request; counts the draw on every matching rule. A draw that
   * fires nothing is counted in memory only (a read must not become a write of the merchant);
   * those counts are written with the next change of the merchant's rules.
   */
  async draw(merchant: Merchant, method: string, path: string): Promise<FaultDraw> {
    const matching = (merchant.faultRules ?? []).filter((rule) => ruleMatches(rule, method, path));
    if (matching.length === 0) return NO_DRAW;
    if (!matching.some((rule) => drawRule(this.withUnsaved(rule)).fires)) {
      for (const rule of matching) this.unsaved.set(rule.id, (this.unsaved.get(rule.id) ?? 0) + 1);
      return NO_DRAW;
    }
    return this.merchants.update(merchant.payeeId, (current) => {
      const faults: Fault[] = [];
      const fired: { ruleId: string; faults: Fault[] }[] = [];
      let changed = false;
      const next = (current.faultRules ?? []).map((rule) => {
        if (!ruleMatches(rule, method, path)) return rule;
        changed = true;
        const draw = drawRule(this.withUnsaved(rule));
        this.unsaved.delete(rule.id);
        if (draw.fires) {
          const ruleFaults = parseFaults(rule.fault, 'fault');
          faults.push(...ruleFaults);
          fired.push({ ruleId: rule.id, faults: ruleFaults });
        }
        return draw.next;
      });
      return [changed ? { ...current, faultRules: next } : null, { faults, fired }] as const;
    });
  }

  /** Gives back the firing of rules whose faults were never applied (the request failed first). */
  giveBack(merchant: Merchant, ruleIds: readonly string[]): Promise<void> {
    if (ruleIds.length === 0) return Promise.resolve();
    return this.merchants.update(merchant.payeeId, (current) => {
      const next = (current.faultRules ?? []).map((rule) =>
        ruleIds.includes(rule.id) ? { ...rule, fired: rule.fired - 1, timesLeft: rule.timesLeft === null ? null : rule.timesLeft + 1 } : rule,
      );
      return [{ ...current, faultRules: next }, undefined] as const;
    });
  }
}
