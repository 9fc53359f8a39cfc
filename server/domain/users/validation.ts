import type { FieldErrors, FieldIssue } from '../errors.js';

/** A new user's fields as the API and the admin commands receive them. */
export interface NewUserInput {
  username?: unknown;
  password?: unknown;
  email?: unknown;
  first_name?: unknown;
  last_name?: unknown;
  phone?: unknown;
}

export interface ValidNewUser {
  username: string;
  password: string;
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
}

const USERNAME = /^[\p{L}\p{N}@.+\-_]+$/u;
// A practical address check: one @, no spaces, a dot in the domain, nothing exotic.
const EMAIL = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\].]{2,}$/u;
const PHONE = /^\+[0-9]+$/;

/**
 * Every rule of the specification's "New user constraints", all reported together and keyed
 * by field. Returns the cleaned user or the field errors.
 */
export function validateNewUser(
  input: NewUserInput,
  commonPasswords: ReadonlySet<string>,
): { ok: true; user: ValidNewUser } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const add = (field: string, issue: FieldIssue) => (errors[field] ??= []).push(issue);

  const username = text(input.username, 'username', add, true);
  if (username !== null) {
    if (username.length > 30) add('username', issue('max_length', 'Ensure this field has no more than 30 characters.', 'Choose a username of 30 characters or fewer.'));
    if (username && !USERNAME.test(username)) add('username', issue('invalid', 'Enter a valid username. It may contain only letters, numbers, and @/./+/-/_ characters.', 'Remove spaces and other punctuation.'));
  }
  const firstName = text(input.first_name, 'first_name', add) ?? '';
  if (firstName.length > 30) add('first_name', issue('max_length', 'Ensure this field has no more than 30 characters.', 'Shorten the first name to 30 characters.'));
  const lastName = text(input.last_name, 'last_name', add) ?? '';
  if (lastName.length > 30) add('last_name', issue('max_length', 'Ensure this field has no more than 30 characters.', 'Shorten the last name to 30 characters.'));
  const email = text(input.email, 'email', add) ?? '';
  if (email && (email.length > 254 || !EMAIL.test(email))) add('email', issue('invalid', 'Enter a valid email address.', 'Use the form name@example.org.'));
  const phone = text(input.phone, 'phone', add) ?? '';
  if (phone.length > 15) add('phone', issue('max_length', 'Ensure this field has no more than 15 characters.', 'A phone number has at most 15 characters, the plus sign included.'));
  if (phone && !PHONE.test(phone)) add('phone', issue('invalid', 'Enter a phone number as a plus sign followed by digits.', 'For example +254700000000, with no spaces.'));

  const password = text(input.password, 'password', add, true, false);
  if (password !== null) {
    for (const problem of passwordProblems(password, { username: username ?? '', firstName, lastName, email }, commonPasswords)) add('password', problem);
  }

  if (Object.keys(errors).length > 0 || username === null || password === null) return { ok: false, errors };
  return { ok: true, user: { username, password, email, firstName, lastName, phone } };
}

/** The password rules on their own, for the admin commands and the API alike. */
export function passwordProblems(
  password: string,
  person: { username: string; firstName: string; lastName: string; email: string },
  commonPasswords: ReadonlySet<string>,
): FieldIssue[] {
  const problems: FieldIssue[] = [];
  if (password.length < 9) problems.push(issue('password_too_short', 'This password is too short. It must contain at least 9 characters.', 'Use a passphrase of several words.'));
  if (password.length > 256) problems.push(issue('password_too_long', 'This password is too long (256 characters at most).', 'Use a shorter passphrase.'));
  const lower = password.toLowerCase();
  const attributes: Array<[string, string]> = [
    ['username', person.username],
    ['first name', person.firstName],
    ['last name', person.lastName],
    ['email', person.email],
  ];
  for (const [label, value] of attributes) {
    if (value && lower.includes(value.toLowerCase())) {
      problems.push(issue('password_too_similar', `The password is too similar to the ${label}.`, `Choose a password that does not contain your ${label}.`));
    }
  }
  if (commonPasswords.has(lower)) problems.push(issue('password_too_common', 'This password is too common.', 'Choose a password that is not on lists of common passwords.'));
  if (/^[0-9]+$/.test(password)) problems.push(issue('password_entirely_numeric', 'This password is entirely numeric.', 'Add letters or symbols.'));
  return problems;
}

function issue(code: string, message: string, hint: string): FieldIssue {
  return { code, message, hints: [hint] };
}

function text(
  value: unknown,
  field: string,
  add: (field: string, issue: FieldIssue) => void,
  required = false,
  trim = true,
): string | null {
  if (value === undefined || value === null || value === '') {
    if (required) add(field, issue('required', 'This field is required.', `Provide ${field}.`));
    return required ? null : '';
  }
  if (typeof value !== 'string') {
    add(field, issue('invalid_type', 'Expected a string.', `Send ${field} as a JSON string.`));
    return null;
  }
  return trim ? value.trim() : value;
}
