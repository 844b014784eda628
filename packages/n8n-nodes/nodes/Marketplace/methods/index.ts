// The editor's look-ups of the Marketplace node: the product picker's search and dynamic options.
export * as listSearch from './listSearch';
export * as loadOptions from './loadOptions';
