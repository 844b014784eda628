// Brands the kit knows by name. The hashtag rule refuses a tag only when it names one of these and it
// is not the item's own; a tag the kit does not know as a brand is left to the service (the client is
// never stricter than the service). The simulator's catalogue is this list too.
export const KNOWN_BRANDS = [
  'Nike',
  'Adidas',
  "Levi's",
  'Carhartt',
  'Zara',
  'Ralph Lauren',
  'Patagonia',
  'The North Face',
  'Dr. Martens',
  'Stussy',
  'Champion',
  'Tommy Hilfiger',
  'Burberry',
  'Gucci',
  'Prada',
  'Uniqlo',
  'H&M',
  'Stone Island',
  'Vivienne Westwood',
  "Arc'teryx",
  'Supreme',
  'Converse',
  'Vans',
  'New Balance',
] as const;

/** Brand names compare without case, spaces or punctuation: "Levi's" ~ "levis", "#StoneIsland" ~ "Stone Island". */
export function normaliseBrand(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}
