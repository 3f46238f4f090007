/** The dashboard's panels that change things: create a payment, webhooks, fault rules. Every field has a label and a slot for its error. */
import { CURRENCY_CODES } from '../../domain/currencies.js';
import { MAGIC_PAYERS } from '../../domain/magic.js';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook-drills.js';
import { FieldError } from './dashboard-panels.js';

export function CreatePanel({ productTypes }: { productTypes: readonly string[] }) {
  return (
    <section class="panel" id="create-panel" aria-labelledby="create-heading">
      <h2 id="create-heading">Create a payment</h2>
      <p class="hint" id="create-signed"></p>
      <form id="create-form" class="form-grid" novalidate>
        <div class="field">
          <label for="create-amount">Amount</label>
          <input id="create-amount" inputmode="decimal" value="10.50" autocomplete="off" aria-describedby="create-amount-error" />
          <FieldError of="create-amount" />
        </div>
        <div class="field">
          <label for="create-currency">Currency</label>
          <select id="create-currency">
            {CURRENCY_CODES.map((code) => (
              <option value={code}>{code}</option>
            ))}
          </select>
          <FieldError of="create-currency" />
        </div>
        <div class="field">
          <label for="create-product">Product type</label>
          <select id="create-product">
            {productTypes.map((type) => (
              <option value={type}>{type}</option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="create-ref">merchant_ref_no</label>
          <input id="create-ref" maxlength={64} autocomplete="off" aria-describedby="create-ref-error" />
          <FieldError of="create-ref" />
        </div>
        <div class="field wide">
          <label for="create-payer">Payer (optional)</label>
          <input id="create-payer" list="magic-payers" maxlength={80} autocomplete="off" aria-describedby="create-payer-error magic-help" />
          <datalist id="magic-payers">
            {Object.keys(MAGIC_PAYERS).map((payer) => (
              <option value={payer}></option>
            ))}
          </datalist>
          <FieldError of="create-payer" />
          <details id="magic-help">
            <summary>Magic payers: steer the outcome with no control call</summary>
            <ul>
              {Object.entries(MAGIC_PAYERS).map(([payer, effect]) => (
                <li>
                  <code>{payer}</code> {effect}
                </li>
              ))}
              <li>Any other payer assigns that payer (status W); empty leaves the payment P.</li>
            </ul>
          </details>
        </div>
        <div class="field wide">
          <label for="create-metadata">Metadata (a JSON object, optional)</label>
          <textarea id="create-metadata" rows={4} spellcheck={false} placeholder='{"order": "A-17"}' aria-describedby="create-metadata-error"></textarea>
          <FieldError of="create-metadata" />
        </div>
        <div class="field wide">
          <button type="submit" class="primary">
            Create payment
          </button>
        </div>
      </form>
      <div id="create-message" aria-live="polite"></div>
      <div id="create-curl"></div>
      <div id="create-answer"></div>
    </section>
  );
}

export function WebhooksPanel() {
  return (
    <section class="panel" id="webhooks-panel" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <div id="webhook-state"></div>
      <form id="webhook-form" class="filters" novalidate>
        <div class="field grow">
          <label for="webhook-url">Webhook URL</label>
          <input id="webhook-url" type="url" placeholder="https://example.test/hooks/payreq" maxlength={2048} autocomplete="off" aria-describedby="webhook-url-error" />
          <FieldError of="webhook-url" />
        </div>
        <button type="submit" class="secondary">
          Save URL
        </button>
        <button type="button" id="webhook-rotate" class="secondary small" hidden>
          Rotate secret
        </button>
        <button type="button" id="webhook-remove" class="danger small" hidden>
          Remove URL
        </button>
      </form>
      <div id="webhook-secret"></div>
      <div id="webhook-message" aria-live="polite"></div>
      <form id="drills-form" class="filters" novalidate>
        <div class="field">
          <label for="drill-duplicate">Duplicate probability</label>
          <input id="drill-duplicate" type="number" min="0" max="1" step="0.1" value="0" />
          <FieldError of="drill-duplicate" />
        </div>
        <div class="field">
          <label for="drill-delay">Delay (sandbox seconds)</label>
          <input id="drill-delay" type="number" min="0" step="1" value="0" />
          <FieldError of="drill-delay" />
        </div>
        <label class="check-label">
          <input type="checkbox" id="drill-reorder" /> reorder (newest first)
        </label>
        <button type="submit" class="secondary">
          Save drills
        </button>
      </form>
      <form id="webhook-test-form" class="filters" novalidate>
        <div class="field">
          <label for="webhook-test-type">Test event</label>
          <select id="webhook-test-type">
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <option value={type}>{type}</option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          Send test event
        </button>
      </form>
      <h3>Webhooks to your laptop</h3>
      <p class="hint">
        Forwards this merchant's deliveries to a local receiver, signed as usual. Set <code>PAYREQ_SANDBOX_KEY</code> to your key first.
      </p>
      <div id="listen-line"></div>
      <h3>Deliveries</h3>
      <div id="deliveries"></div>
    </section>
  );
}

export function FaultsPanel() {
  return (
    <section class="panel" id="faults-panel" aria-labelledby="faults-heading">
      <h2 id="faults-heading">Faults</h2>
      <div id="fault-rules"></div>
      <form id="fault-form" class="form-grid" novalidate>
        <div class="field">
          <label for="fault-method">Method</label>
          <select id="fault-method">
            {['*', 'POST', 'GET'].map((m) => (
              <option value={m}>{m === '*' ? '* (any)' : m}</option>
            ))}
          </select>
        </div>
        <div class="field wide">
          <label for="fault-path">Path (glob, * matches any run)</label>
          <input id="fault-path" value="/openapi/v1/payments/payment" maxlength={256} autocomplete="off" aria-describedby="fault-path-error" />
          <FieldError of="fault-path" />
        </div>
        <div class="field">
          <label for="fault-fault">Fault</label>
          <input id="fault-fault" value="timeout" list="fault-kinds" maxlength={128} autocomplete="off" aria-describedby="fault-fault-error" />
          <datalist id="fault-kinds">
            {['timeout', 'drop', 'latency=2000', 'error=503', 'error-after-commit=500'].map((f) => (
              <option value={f}></option>
            ))}
          </datalist>
          <FieldError of="fault-fault" />
        </div>
        <div class="field">
          <label for="fault-probability">Probability</label>
          <input id="fault-probability" type="number" min="0" max="1" step="0.1" value="1" />
          <FieldError of="fault-probability" />
        </div>
        <div class="field">
          <label for="fault-times">Times (empty: every time)</label>
          <input id="fault-times" inputmode="numeric" value="1" autocomplete="off" />
          <FieldError of="fault-times" />
        </div>
        <div class="field wide">
          <button type="submit" class="secondary">
            Add rule
          </button>
        </div>
      </form>
      <div id="faults-message" aria-live="polite"></div>
      <h3>The same fault on one request</h3>
      <div id="fault-header"></div>
    </section>
  );
}
