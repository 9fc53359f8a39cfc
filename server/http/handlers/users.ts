import type { User } from '../../domain/model.js';
import type { UserService } from '../../domain/users/service.js';
import { toIso } from '../../db/time.js';
import { requestContext, type AppContext } from '../state.js';

/** A user as the API shows it (specification: User representation). */
export function presentUser(user: User) {
  return {
    username: user.username,
    created_at: toIso(user.createdAt),
    id: user.id,
    name: [user.firstName, user.lastName].filter(Boolean).join(' '),
    email: user.email,
  };
}

/** The users API wraps results in `{status: {message, code}, data}`. */
function envelope(ctx: AppContext, status: number, data: unknown): void {
  ctx.status = status;
  ctx.body = { status: { message: status === 201 ? 'Created' : 'OK', code: status }, data };
}

export function userHandlers(users: UserService) {
  return {
    async list(ctx: AppContext) {
      envelope(ctx, 200, (await users.list(requestContext(ctx))).map(presentUser));
    },
    async me(ctx: AppContext) {
      envelope(ctx, 200, presentUser(await users.me(requestContext(ctx))));
    },
    async get(ctx: AppContext) {
      envelope(ctx, 200, presentUser(await users.get(requestContext(ctx), String(ctx.params.id))));
    },
    async create(ctx: AppContext) {
      envelope(ctx, 201, presentUser(await users.create(requestContext(ctx), ctx.state.body)));
    },
  };
}
