/** The dashboard's panels that show what happened: payments, one payment, the request log, clock and go-live. */

const STATUS_FILTERS = [
  ['', 'All statuses'],
  ['P', 'P · pending'],
  ['W', 'W · waiting'],
  ['A', 'A · paid'],
  ['F', 'F · failed'],
  ['E', 'E · expired'],
  ['V', 'V · voided'],
] as const;

/** A field's message slot, named by the field's id: the script writes what is wrong there, before any request. */
export const FieldError = ({ of }: { of: string }) => <div class="field-error" id={`${of}-error`} aria-live="polite"></div>;

export function PaymentsPanel() {
  return (
    <section class="panel" id="payments-panel" aria-labelledby="payments-heading">
      <h2 id="payments-heading">
        <span>
          Payments <span class="count" id="payments-count"></span>
        </span>
      </h2>
      <form id="payment-search" class="filters" novalidate role="search">
        <div class="field grow">
          <label for="search">Search</label>
          <input id="search" type="search" placeholder="payment_id, merchant_ref_no or payer" maxlength={64} autocomplete="off" />
        </div>
        <div class="field">
          <label for="status-filter">Status</label>
          <select id="status-filter">
            {STATUS_FILTERS.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      <div id="payments-message" aria-live="polite"></div>
      <div class="table-wrap">
        <table id="payments" class="cards">
          <thead>
            <tr>
              <th scope="col">QR</th>
              <th scope="col">Reference / payment_id</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
              <th scope="col">Created (sandbox time)</th>
              <th scope="col">Payer</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody id="payments-body"></tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages of payments">
        <button type="button" id="payments-newer" class="secondary small" disabled>
          ← Newer
        </button>
        <span id="payments-page" class="hint">
          Page 1
        </span>
        <button type="button" id="payments-older" class="secondary small" disabled>
          Older →
        </button>
      </nav>
    </section>
  );
}

export function DetailPanel() {
  return (
    <section class="panel detail" id="detail-panel" aria-labelledby="detail-title" hidden>
      <h2>
        <span id="detail-title">Payment</span>
        <button type="button" id="detail-close" class="secondary small">
          Close
        </button>
      </h2>
      <div id="detail-message" aria-live="polite"></div>
      <div id="detail"></div>
    </section>
  );
}

export function JournalPanel() {
  return (
    <section class="panel journal" id="journal-panel" aria-labelledby="journal-heading">
      <h2 id="journal-heading">
        <span>
          Request log <span class="count" id="journal-count"></span>
        </span>
      </h2>
      <form id="journal-filter" class="filters" novalidate>
        <div class="field">
          <label for="journal-status">Status</label>
          <input id="journal-status" inputmode="numeric" placeholder="e.g. 401" maxlength={3} autocomplete="off" />
          <FieldError of="journal-status" />
        </div>
        <div class="field grow">
          <label for="journal-path">Path contains</label>
          <input id="journal-path" placeholder="/openapi/v1/payments" maxlength={256} autocomplete="off" />
        </div>
        <label class="check-label">
          <input type="checkbox" id="journal-reads" /> show GETs of /sandbox/v1
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
        <button type="button" id="clear-journal" class="danger small" hidden>
          Clear log
        </button>
      </form>
      <div id="journal-message" aria-live="polite"></div>
      <div id="journal"></div>
    </section>
  );
}

export function GoLivePanel() {
  return (
    <section class="panel readiness" id="golive-panel" aria-labelledby="golive-heading">
      <h2 id="golive-heading">
        <span>
          Clock and go-live <span class="count" id="readiness-verdict"></span>
        </span>
      </h2>
      <form id="advance-form" class="filters" novalidate>
        <div class="field">
          <label for="advance-seconds">Advance the sandbox clock by (seconds)</label>
          <input type="number" id="advance-seconds" value="900" min="1" step="1" />
          <FieldError of="advance-seconds" />
        </div>
        <button type="submit" class="secondary" id="advance">
          Advance clock
        </button>
      </form>
      <p class="hint">Expiries, delayed payers and settlement cut-offs that fall due run at once. The readiness report below is judged from what your integration really did here.</p>
      <div class="toolbar">
        <button type="button" id="refresh-readiness" class="secondary small">
          Check again
        </button>
        <button type="button" id="readiness-junit" class="secondary small">
          Download JUnit file
        </button>
      </div>
      <div id="golive-message" aria-live="polite"></div>
      <div id="readiness"></div>
    </section>
  );
}
