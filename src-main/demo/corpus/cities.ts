/**
 * The research team's dataset: cities of three fictional countries, with
 * the city-proper population and the metropolitan-area population. Fictional
 * so the ground truth is exact. Several cities are under 1 million in the
 * city proper but over it with their metro area: the planted planner bug
 * (measuring by metro_population) turns exactly those into wrong answers.
 */
export interface CityRow {
  city: string;
  country: string;
  population: number;
  metro_population: number;
}

export const CITIES: CityRow[] = [
  { city: 'Port Aurel', country: 'Aurelia', population: 2_410_000, metro_population: 3_900_000 },
  { city: 'Vessen', country: 'Aurelia', population: 1_320_000, metro_population: 2_050_000 },
  { city: 'Kaltra', country: 'Aurelia', population: 1_050_000, metro_population: 1_480_000 },
  { city: 'Dunmore', country: 'Aurelia', population: 870_000, metro_population: 1_610_000 },
  { city: 'Lenhal', country: 'Aurelia', population: 640_000, metro_population: 1_220_000 },
  { city: 'Sorrin', country: 'Aurelia', population: 410_000, metro_population: 690_000 },
  { city: 'Ebbet', country: 'Aurelia', population: 150_000, metro_population: 260_000 },
  { city: 'Gradna', country: 'Borovia', population: 1_900_000, metro_population: 2_600_000 },
  { city: 'Mirek', country: 'Borovia', population: 980_000, metro_population: 1_150_000 },
  { city: 'Volsk', country: 'Borovia', population: 540_000, metro_population: 700_000 },
  { city: 'Santa Brisa', country: 'Caldera', population: 3_100_000, metro_population: 4_800_000 },
  { city: 'Ocoa', country: 'Caldera', population: 1_010_000, metro_population: 1_300_000 },
  { city: 'Pinar', country: 'Caldera', population: 990_000, metro_population: 1_400_000 },
  { city: 'Alto Verde', country: 'Caldera', population: 300_000, metro_population: 1_050_000 },
];

export const COUNTRIES = [...new Set(CITIES.map((c) => c.country))];

/** Ground truth for "which cities in `country` have a population over `threshold`" (city proper). */
export function citiesOver(country: string, threshold: number): string[] {
  return CITIES.filter((c) => c.country === country && c.population > threshold).map((c) => c.city);
}
