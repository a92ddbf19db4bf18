import { tokenPayloadSchema, tokenRequestSchema } from '@svc/insight/contract';
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
];
