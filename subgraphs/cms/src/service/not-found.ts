import { SvcError } from '@svc/kit';

export const contentNotFound = (id: string) => new SvcError('NOT_FOUND', `No content with id ${JSON.stringify(id)}`, { slug: 'content-not-found', title: 'Content Not Found' });

export const versionNotFound = (id: string, version: number) => new SvcError('NOT_FOUND', `Content ${id} has no version ${version}`, { slug: 'version-not-found' });

export const formNotFound = (siteKey: string, formKey: string) =>
  new SvcError('NOT_FOUND', `Site ${JSON.stringify(siteKey)} has no form ${JSON.stringify(formKey)}`, { slug: 'form-not-found', title: 'Form Not Found' });
