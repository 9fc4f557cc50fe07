import { DEFAULT_TITLE } from '@/core/storage/default-title';
import { t } from './i18n';

/**
 * A conversation's title as the pages show it: the default title the background gives a new
 * conversation ("New conversation", stored in English) in the page's language; any other title
 * as it is.
 */
export function shownTitle(conversation: { title: string; titleEdited?: boolean }): string {
  return conversation.title === DEFAULT_TITLE && !conversation.titleEdited ? t('chatView.newConversation') : conversation.title;
}
