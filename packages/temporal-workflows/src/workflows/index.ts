export * from './bulk-listing.ts';
