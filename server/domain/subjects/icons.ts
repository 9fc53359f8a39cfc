/**
 * A subject's icon by subtype, then type, among the built-in icons (static/icons, served at
 * /static/sprite-src/): the map draws `last_position.properties.image` and track images, lists
 * show `image_url`. One mapping for every body that names a subject's icon.
 */
const ICON_BY_KIND: Record<string, string> = {
  ranger: 'foot-patrol', person: 'foot-patrol', staff: 'foot-patrol', security: 'foot-patrol', scout: 'foot-patrol',
  vehicle: 'vehicle-patrol', car: 'vehicle-patrol', truck: 'vehicle-patrol', motorcycle: 'vehicle-patrol', boat: 'vehicle-patrol',
  aircraft: 'aerial-patrol', plane: 'aerial-patrol', helicopter: 'aerial-patrol', wildlife: 'wildlife',
};

/** The icon's path, `/static/sprite-src/<icon>.svg` (`generic` when neither kind has one). */
export function subjectIconPath(subject: { subjectType: string; subjectSubtype: string }): string {
  const icon = (Object.hasOwn(ICON_BY_KIND, subject.subjectSubtype) && ICON_BY_KIND[subject.subjectSubtype]) || (Object.hasOwn(ICON_BY_KIND, subject.subjectType) && ICON_BY_KIND[subject.subjectType]) || 'generic';
  return `/static/sprite-src/${icon}.svg`;
}
