// State of the sender ID area: registrations (by project) and callback configurations; save() and load()
// carry them across a restart of a persistent sandbox.
import { randomUUID } from 'node:crypto';
import type { Registration, RegistrationState, RegistrationType } from './model.js';

export interface ListFilter {
  registrationType: RegistrationType;
  registrationState?: RegistrationState;
  marketCode?: string;
  senderId?: string;
}

export class SenderIdStore {
  private readonly registrations = new Map<string, Registration>();
  /** projectId → hmacSecret. */
  private readonly secrets = new Map<string, string>();

  newId(): string {
    return randomUUID();
  }

  add(r: Registration): void {
    this.registrations.set(r.id, r);
  }

  get(projectId: string, id: string): Registration | undefined {
    const r = this.registrations.get(id);
    return r && r.projectId === projectId ? r : undefined;
  }

  byId(id: string): Registration | undefined {
    return this.registrations.get(id);
  }

  delete(id: string): void {
    this.registrations.delete(id);
  }

  list(projectId: string, f: ListFilter): Registration[] {
    return [...this.registrations.values()].filter(
      (r) =>
        r.projectId === projectId &&
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

  clear(): void {
    this.registrations.clear();
    this.secrets.clear();
  }

  save(): { registrations: Registration[]; secrets: Record<string, string> } {
    return { registrations: [...this.registrations.values()], secrets: Object.fromEntries(this.secrets) };
  }

  load(saved: { registrations: Registration[]; secrets: Record<string, string> }): void {
    this.clear();
    for (const r of saved.registrations) this.add(r);
    for (const [projectId, secret] of Object.entries(saved.secrets)) this.setSecret(projectId, secret);
  }
}
