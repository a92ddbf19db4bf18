/**
 * Personal-data masking for the gateway's `piiStrict` mode.
 *
 * Before a request leaves the gateway, every detected personal value in the message texts is
 * replaced by a placeholder `[KIND_N]` (e.g. `[EMAIL_1]`, `[CARD_2]`), and the pair is kept in a
 * per-request {@link PiiVault}. The provider's answer is unmasked with the same vault, either at
 * once ({@link unmaskPii}) or delta by delta ({@link createStreamUnmasker}). Everything here is
 * pure (no I/O, no globals besides the vault registry) and fails closed: whatever cannot be
 * processed throws {@link PiiMaskingError} instead of passing through unmasked.
 *
 * Known limitations:
 *  - Detection is pattern based: names, postal addresses, free-text identifiers, German tax ids,
 *    SSNs without separators and national ids of other countries are not detected.
 *  - A bare digit run such as `5551234567` with no phone word before it is not masked (it cannot
 *    be told from order numbers, amounts or epoch timestamps); formatted numbers are.
 *  - Four-part version numbers (1.2.3.4) are indistinguishable from IPv4 and are masked; ISBN-like
 *    dash-grouped numbers without a keyword in front may be masked as phones; numbers separated
 *    only by spaces next to a phone number may be masked together with it.
 *  - The same value written differently (`4111111111111111` / `4111 1111 1111 1111`) gets two
 *    placeholders: values are keyed by their exact text so they can be restored verbatim.
 *  - Only placeholders the model reproduces exactly are restored; `[Email_1]` or `[EMAIL 1]` stay.
 *  - Media parts (`image_url`, `input_audio`) pass through uninspected; other non-text content
 *    parts are refused. Tool call arguments are masked inside their JSON strings (and numbers);
 *    arguments that are not valid JSON are masked as plain text. Only `content` and `tool_calls`
 *    of a message are masked (not e.g. `name`).
 */
export { createPiiVault, PiiMaskingError, type PiiKind, type PiiVault } from './vault.js';
export { maskMessages, maskPii } from './mask.js';
export { createStreamUnmasker, unmaskPii } from './unmask.js';
