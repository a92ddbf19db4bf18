import { randomUUID } from 'node:crypto';
import { defineEntity, p } from '@mikro-orm/core';

export const AccountEntity = defineEntity({
  name: 'Account',
  schema: 'insight',
  tableName: 'account',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    username: p.text().unique(),
    passwordHash: p.text(),
    roles: p.json<string[]>(),
    tenants: p.json<string[] | '*'>(),
    sites: p.json<string[] | '*'>(),
    disabledAt: p.datetime().nullable(),
    createdBy: p.text().nullable(),
    sessionsEndedAt: p.datetime().nullable(),
    sessionVersion: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const INSIGHT_ENTITIES = [AccountEntity];
