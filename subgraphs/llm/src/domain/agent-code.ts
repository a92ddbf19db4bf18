/** Agent codes: letters, digits, `.`, `_` and `-`, at most 64, starting with a letter or digit. */
export const AGENT_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
