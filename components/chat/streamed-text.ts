import type { InjectionKey } from 'vue';

/**
 * How a message view reads its text (`chat.textOf`: the text streamed so far, while an answer
 * streams), given by the chat view. A message view reads it itself, so a streamed piece renders
 * that message alone and not the list around it. Without a chat view above: the message's own.
 */
export const MESSAGE_TEXT: InjectionKey<(message: { id: string; text: string }) => string> = Symbol('message text');

export const ownText = (message: { id: string; text: string }): string => message.text;
