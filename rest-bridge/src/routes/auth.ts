import { ownPasswordInputSchema, tokenPayloadSchema, tokenRequestSchema } from '@svc/insight/contract';
import { jsonSchemaOf } from '@svc/kit';
import type { RouteSpec } from '../route-spec.js';

export const authRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/api/v1/auth/token',
    style: 'insight',
    operation: 'IssueAccessToken',
    variables: { username: 'body.username', password: 'body.password' },
    result: 'issueAccessToken',
    status: 200,
    summary: 'Exchange a username and password for a JWT access token',
    description: 'Throttled per username and per client address, for every instance alike: after SVC_LOGIN_USERNAME_ATTEMPTS attempts on a username (default 5) or SVC_LOGIN_ADDRESS_ATTEMPTS from an address (default 30), each further attempt waits a doubling delay (from 1 s, at most 900 s), and one during the delay is a 429 with Retry-After. A success starts the username afresh; an idle hour forgets it.',
    errors: { 401: 'Wrong username or password (or a disabled account); the answer never says which', 429: 'Too many login attempts; Retry-After says when to try again' },
    tag: 'auth',
    security: 'none',
    body: jsonSchemaOf(tokenRequestSchema),
    response: jsonSchemaOf(tokenPayloadSchema, 'output'),
  },
  {
    method: 'POST',
    path: '/api/v1/auth/password',
    style: 'insight',
    operation: 'ChangeMyPassword',
    variables: { input: 'body' },
    result: 'changeMyPassword',
    status: 200,
    summary: 'Change your own password (every session of yours ends; a fresh token is returned)',
    description: 'Any local account, with its current password (throttled like a login). newPassword: 8-1024 characters. Tokens issued before are refused by every service within SVC_SESSION_CHECK_SECONDS (default 5); use the returned one.',
    tag: 'auth',
    security: 'bearer',
    body: jsonSchemaOf(ownPasswordInputSchema),
    response: jsonSchemaOf(tokenPayloadSchema, 'output'),
    errors: {
      401: 'Missing, expired or invalid token',
      403: 'Not a local account (a token of an outside identity provider or a service)',
      409: 'The configured admin account (its password comes from SVC_ADMIN_PASSWORD)',
      422: 'currentPassword is wrong, or newPassword too short or long; errors[] names it',
      429: 'Too many attempts; Retry-After says when to try again',
    },
  },
];
