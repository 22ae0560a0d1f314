// Where the platform reaches relayflow: the API serves these paths, and whoever registers them with the
// platform (the worker at start-up, npm start, the tests) builds the URL from the public base URL.
export const VERIFICATION_CALLBACK_PATH = '/callbacks/verification';
export const PROVISIONING_WEBHOOK_PATH = '/callbacks/provisioning';
export const SENDERID_CALLBACK_PATH = '/callbacks/senderid';
export const CONVERSATION_WEBHOOK_PATH = '/callbacks/conversation';
/** MMS postbacks are not signed: the URL carries a secret token, `/callbacks/mms/<token>`. */
export const MMS_POSTBACK_PATH = '/callbacks/mms';
export const VOICE_CALLBACK_PATH = '/callbacks/voice';
