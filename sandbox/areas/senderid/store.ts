// State of the sender ID area: registrations (by project) and callback configurations; a persistent sandbox keeps
// both across a restart (`kept`).
import { randomUUID } from 'node:crypto';
import type { KeptParts } from '../../core/kept.js';
import { KeyedTable, ScopedTable } from '../../core/table.js';
import type { Registration } from './model.js';
import type { RegistrationState, RegistrationType } from '../../../common/wire/senderid.js';

export interface ListFilter {
  registrationType: RegistrationType;
  registrationState?: RegistrationState;
  marketCode?: string;
  senderId?: string;
}

export class SenderIdStore {
  private readonly registrations = new ScopedTable<Registration>({ scope: (r) => r.projectId });
  /** projectId → hmacSecret. */
  private readonly secrets = new KeyedTable<string>();

  newId(): string {
    return randomUUID();
  }

  add(r: Registration): void {
    this.registrations.add(r);
  }

  get(projectId: string, id: string): Registration | undefined {
    return this.registrations.get(projectId, id);
  }

  byId(id: string): Registration | undefined {
    return this.registrations.find(id)?.item;
  }

  delete(r: Registration): void {
    this.registrations.remove(r.projectId, r.id);
  }

  list(projectId: string, f: ListFilter): Registration[] {
    return this.registrations
      .list(projectId)
      .filter(
        (r) =>
          r.registrationType === f.registrationType &&
          (f.registrationState === undefined || r.status === f.registrationState) &&
          (f.marketCode === undefined || r.marketCode === f.marketCode) &&
          (f.senderId === undefined || r.senderId === f.senderId),
      );
  }

  secret(projectId: string): string | undefined {
    return this.secrets.get(projectId);
  }

  setSecret(projectId: string, secret: string): void {
    this.secrets.set(projectId, secret);
  }

  reset(): void {
    this.registrations.reset();
    this.secrets.reset();
  }

  readonly kept: KeptParts = { registrations: this.registrations, secrets: this.secrets };
}
