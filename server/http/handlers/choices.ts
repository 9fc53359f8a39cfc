import type { ChoiceService } from '../../domain/choices/service.js';
import { pageBody, readPage } from '../pagination.js';
import { answerConditionally } from '../conditional.js';
import { presentChoice } from '../presenters.js';
import { queryBoolean, queryString, requestOrigin, requestUrl } from '../query.js';
import { requestContext, type AppContext } from '../state.js';

export function choiceHandlers(choices: ChoiceService, trustProxy: boolean) {
  return {
    /** `GET /v2.0/schemas/choices.json?field=a[,b]`: the lists as a JSON Schema (CONTRACT §4). */
    async choicesJson(ctx: AppContext) {
      const fields = ctx.querystring ? new URLSearchParams(ctx.querystring).getAll('field').flatMap((value) => value.split(',')) : [];
      const entries = await choices.activeChoices(requestContext(ctx), fields);
      ctx.body = {
        $id: requestUrl(ctx, trustProxy).toString(),
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'string',
        title: 'Choices',
        // As the original: the document says what it lists; each entry names its list in `description`.
        description: fields.length > 0 ? `Choices of ${fields.join(', ')}` : 'Choices',
        oneOf: entries.map((choice) => ({ const: choice.value, title: choice.display, description: choice.field })),
      };
    },
    async list(ctx: AppContext) {
      const page = readPage(ctx);
      const filter = { field: queryString(ctx, 'field') ?? null, includeInactive: queryBoolean(ctx, 'include_inactive') };
      const key = `f=${filter.field ?? ''}&ii=${Number(filter.includeInactive)}&p=${page.page}&ps=${page.pageSize}&o=${requestOrigin(ctx, trustProxy)}`;
      if (answerConditionally(ctx, await choices.listValidators(requestContext(ctx), key))) return;
      const { total, items } = await choices.list(requestContext(ctx), filter, page);
      ctx.body = pageBody(ctx, page, total, items.map(presentChoice), trustProxy);
    },
    async get(ctx: AppContext) {
      ctx.body = presentChoice(await choices.get(requestContext(ctx), String(ctx.params.id)));
    },
    async create(ctx: AppContext) {
      ctx.status = 201;
      ctx.body = presentChoice(await choices.create(requestContext(ctx), ctx.state.body));
    },
    async replace(ctx: AppContext) {
      ctx.body = presentChoice(await choices.update(requestContext(ctx), String(ctx.params.id), ctx.state.body, 'replace'));
    },
    async patch(ctx: AppContext) {
      ctx.body = presentChoice(await choices.update(requestContext(ctx), String(ctx.params.id), ctx.state.body, 'patch'));
    },
    async remove(ctx: AppContext) {
      await choices.deactivate(requestContext(ctx), String(ctx.params.id));
      ctx.status = 204;
    },
  };
}
