/**
 * Escapes text for an XML or HTML element, or a double-quoted attribute: the feed reader's HTML
 * paragraphs and the sample's generated XML files.
 */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
