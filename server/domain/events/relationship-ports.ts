/** Issue 27: filled in by its area (step 0 placeholder). */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface EventRelationshipRepository {}
