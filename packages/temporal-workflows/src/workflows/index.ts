export * from './bulk-listing.ts';
export * from './reconcile-orders.ts';
export * from './seller-auth.ts';
export * from './shop-lane.ts';
