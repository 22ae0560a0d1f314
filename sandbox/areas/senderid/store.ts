// State of the sender ID area: registrations (by project) and callback configurations; persist() and restore()
// carry them across a restart of a persistent sandbox.
import { randomUUID } from 'node:crypto';
import { ScopedTable } from '../../core/table.js';
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
  private readonly secrets = new Map<string, string>();

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
    this.secrets.clear();
  }

  persist(): { registrations: Registration[]; secrets: Record<string, string> } {
    return { registrations: this.registrations.save(), secrets: Object.fromEntries(this.secrets) };
  }

  restore(saved: { registrations: Registration[]; secrets: Record<string, string> }): void {
    this.reset();
    this.registrations.load(saved.registrations);
    for (const [projectId, secret] of Object.entries(saved.secrets)) this.setSecret(projectId, secret);
  }
}
