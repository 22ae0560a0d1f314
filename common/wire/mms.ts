// Wire shapes, once, so client and sandbox cannot drift: the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// extend these), so it stays an independent check. Here: MMS (area C), docs/mms-wire.md.

/** The media objects a slide may hold, at most one of each (`{"url": ...}` on the wire). */
export const MMS_MEDIA_KINDS = ['image', 'audio', 'video', 'contact', 'calendar', 'pdf', 'spreadsheet'] as const;
export type MmsMediaKind = (typeof MMS_MEDIA_KINDS)[number];
