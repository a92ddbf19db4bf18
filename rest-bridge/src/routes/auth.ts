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
    tag: 'auth',
    security: 'none',
    body: jsonSchemaOf(tokenRequestSchema),
    response: jsonSchemaOf(tokenPayloadSchema, 'output'),
  },
];
