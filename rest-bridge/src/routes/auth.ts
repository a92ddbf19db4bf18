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
    body: {
      type: 'object',
      required: ['username', 'password'],
      properties: { username: { type: 'string', example: 'admin' }, password: { type: 'string', format: 'password', example: 'admin' } },
    },
    response: {
      type: 'object',
      properties: { accessToken: { type: 'string' }, tokenType: { type: 'string', const: 'Bearer' }, expiresIn: { type: 'integer' } },
    },
  },
];
