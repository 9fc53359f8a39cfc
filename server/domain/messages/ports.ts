/** Messages to and from subjects (through a source, the device) and users (issue 27 §5). */
export type MessageType = 'inbox' | 'outbox';
export const MESSAGE_TYPES: readonly MessageType[] = ['inbox', 'outbox'];
/** The original's delivery states. */
export const MESSAGE_STATUSES = ['pending', 'sent', 'errored', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface MessageRecord {
  id: string;
  tenantId: string;
  /** `inbox`: from a subject's device to the operations room; `outbox`: to a subject's device. */
  messageType: MessageType;
  subjectId: string | null;
  sourceId: string | null;
  /** The user who sent an outbox message, or to whom an inbox message was addressed. */
  userId: string | null;
  text: string;
  status: MessageStatus;
  latitude: number | null;
  longitude: number | null;
  messageTime: number;
  read: boolean;
  additional: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** A message with the names of who it is from and to (one read, joined). */
export interface MessageView extends MessageRecord {
  subject: { id: string; name: string; subjectType: string; subjectSubtype: string } | null;
  source: { id: string; manufacturerId: string; providerKey: string } | null;
  user: { id: string; username: string; firstName: string; lastName: string } | null;
}

export interface MessageFilter {
  /** Messages of any of these subjects (the web app asks for several, comma-separated). */
  subjectIds?: string[];
  sourceId?: string;
  read?: boolean;
  messageType?: MessageType;
}

/** A device found for a message: the source, and the subject it is assigned to at the time asked. */
export interface MessageDevice {
  sourceId: string;
  subjectId: string | null;
}

export interface MessageRepository {
  insert(record: MessageRecord): Promise<void>;
  find(tenantId: string, id: string): Promise<MessageView | null>;
  /** Newest first (message_time, then id); `total` counts the filter's rows. */
  list(tenantId: string, filter: MessageFilter, offset: number, limit: number): Promise<{ total: number; items: MessageView[] }>;
  /** Sets `read` on those of `ids` in the tenant; returns the ids changed or already so. */
  setRead(tenantId: string, ids: readonly string[], read: boolean, at: number): Promise<string[]>;
  remove(tenantId: string, id: string): Promise<boolean>;
  subjectExists(tenantId: string, subjectId: string): Promise<boolean>;
  /** A source by id, or by manufacturer id (and provider key when given), with its subject at `at`. */
  findDevice(tenantId: string, by: { sourceId?: string; manufacturerId?: string; providerKey?: string }, at: number): Promise<MessageDevice | 'ambiguous' | null>;
  /** The source assigned to a subject at `at` (the newest assignment covering it), or null. */
  sourceOfSubject(tenantId: string, subjectId: string, at: number): Promise<string | null>;
}
