import type { SubjectService } from '../../domain/subjects/service.js';
import { answerConditionally } from '../conditional.js';
import { presentSubject } from '../presenters.js';
import { requestContext, type AppContext } from '../state.js';

/**
 * The tracked-by schema (CONTRACT §7): a draft-04 document listing who may lead a segment, with
 * both `enum` (read by mobile) and `enum_ext` (read by web). ETag only (spec rule 2), salted
 * with the caller; the response depends on Authorization and User-Profile.
 */
export function trackedByHandler(subjects: SubjectService) {
  return async (ctx: AppContext) => {
    const profile = ctx.get('User-Profile') || undefined;
    const validators = await subjects.trackedByValidators(requestContext(ctx), profile);
    ctx.set('Vary', 'Authorization, User-Profile');
    if (answerConditionally(ctx, validators)) return;
    const leaders = (await subjects.patrolLeaders(requestContext(ctx))).map(presentSubject);
    ctx.body = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      required: [],
      description: '',
      dependencies: {},
      properties: {
        leader: {
          type: 'object',
          title: 'Leader',
          enum: leaders,
          enum_ext: leaders.map((leader) => ({ title: leader.name, value: leader })),
        },
      },
    };
  };
}
