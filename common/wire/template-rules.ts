// The platform's limits on a template's components, written once: the API checks a request against them before
// it goes out, the sandbox refuses what the platform would. Source: spec part G, Template (CHATA) ("up to 10 buttons
// in marketing templates; up to 2 URL call-to-action buttons", the header example media limits); the MIME types
// behind "text, pdf, office types" are ours (docs/provisioning-wire.md).

export const MB = 1024 * 1024;
/** Header example media the platform accepts, per header format. */
export const TEMPLATE_HEADER_MEDIA: Readonly<Record<string, { maxBytes: number; types: readonly string[] }>> = {
  IMAGE: { maxBytes: 5 * MB, types: ['image/jpeg', 'image/png', 'image/webp'] },
  VIDEO: { maxBytes: 16 * MB, types: ['video/mp4', 'video/3gpp'] },
  DOCUMENT: {
    maxBytes: 100 * MB,
    types: [
      'text/plain',
      'application/pdf',
      'application/msword',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ],
  },
};
/** At most this many buttons in a template, of which at most TEMPLATE_MAX_URL_BUTTONS open a URL. */
export const TEMPLATE_MAX_BUTTONS = 10;
export const TEMPLATE_MAX_URL_BUTTONS = 2;
