/**
 * Names that suggest an action that pays, deletes or sends (`act`), or a field that holds a secret
 * (`secret`), in English, the five UI languages (he, hy, vi, zh) and a few big web languages (es,
 * fr, de, pt, ru, ja). A hint, not a proof: a page can name its buttons as it likes (SECURITY.md).
 *
 * Words of alphabets with spaces match at the start of a word ("pay" matches "Payment", not
 * "Display"); Hebrew (prefixed articles and prepositions), Chinese and Japanese match anywhere.
 */

const ACT_STEMS = [
  // English
  'buy', 'pay', 'purchase', 'order', 'checkout', 'check out', 'place order', 'delete', 'remove', 'erase', 'destroy', 'send', 'transfer',
  'withdraw', 'donate', 'subscribe', 'sell', 'wire transfer', 'confirm payment', 'submit payment',
  // Spanish, Portuguese
  'comprar', 'compra', 'pagar', 'pago', 'pagamento', 'pedido', 'finalizar', 'eliminar', 'borrar', 'excluir', 'apagar', 'remover', 'enviar',
  'transferir', 'donar', 'doar', 'suscrib',
  // French
  'acheter', 'achat', 'payer', 'paiement', 'commander', 'commande', 'supprimer', 'effacer', 'envoyer', 'virement', 'transférer', 'faire un don',
  // German
  'kaufen', 'kauf', 'bezahlen', 'zahlen', 'zahlung', 'bestellen', 'bestellung', 'zur kasse', 'kasse', 'löschen', 'entfernen', 'senden',
  'absenden', 'versenden', 'überweis', 'spenden', 'abonnieren',
  // Russian
  'купить', 'покупк', 'оплат', 'заплатить', 'платить', 'заказ', 'оформить', 'удалить', 'удален', 'стереть', 'отправ', 'перевести', 'перевод',
  // Armenian
  'գնել', 'գնում', 'վճար', 'պատվիր', 'պատվեր', 'ջնջել', 'հեռացնել', 'ուղարկել', 'փոխանցել',
  // Vietnamese
  'mua', 'thanh toán', 'trả tiền', 'đặt hàng', 'xóa', 'xoá', 'gửi', 'chuyển tiền', 'chuyển khoản',
];
const ACT_ANYWHERE = [
  // Hebrew
  'לקנות', 'קנייה', 'קנה', 'רכיש', 'תשלום', 'לשלם', 'שלם', 'הזמנ', 'הזמן', 'מחק', 'מחיק', 'הסר', 'שלח', 'שליח', 'העבר',
  // Chinese
  '购买', '买', '支付', '付款', '结算', '下单', '订单', '删除', '移除', '发送', '转账', '捐',
  // Japanese
  '購入', '買', '支払', '決済', '注文', '削除', '消去', '送信', '送金', '振込', 'レジに進む',
];

const SECRET_STEMS = [
  'password', 'passcode', 'passphrase', 'pin code', 'pin-code', 'card number', 'credit card', 'cvv', 'cvc', 'security code', 'iban',
  'contraseña', 'senha', 'mot de passe', 'passwort', 'kennwort', 'пароль', 'գաղտնաբառ', 'mật khẩu', 'numéro de carte', 'kartennummer',
];
const SECRET_ANYWHERE = ['סיסמ', '密码', '密碼', 'パスワード', '暗証'];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Start of a word: not after a letter, mark or digit. */
const pattern = (stems: string[], anywhere: string[]) =>
  new RegExp(`(?<![\\p{L}\\p{M}\\p{N}])(?:${stems.map(escape).join('|')})|${anywhere.map(escape).join('|')}`, 'iu');

// Made when first used: not at every start of the background.
let act: RegExp | undefined;
let secret: RegExp | undefined;

/** Whether a name from the page suggests paying, deleting or sending (`act`), or a secret field (`secret`). */
export function isSensitiveName(name: string, what: 'act' | 'secret' = 'act'): boolean {
  const text = name.slice(0, 2000).normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');
  return (what === 'act' ? (act ??= pattern(ACT_STEMS, ACT_ANYWHERE)) : (secret ??= pattern(SECRET_STEMS, SECRET_ANYWHERE))).test(text);
}
