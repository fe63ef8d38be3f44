import sanitizeHtml from "sanitize-html";

/** Administrator-written HTML (terms, privacy) made safe to render: no scripts, no handlers. */
function sanitizeRichText(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [
      "h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "strong", "b", "em", "i", "u", "s",
      "blockquote", "ul", "ol", "li", "a", "span", "div", "table", "thead", "tbody", "tr", "th", "td",
      "code", "pre",
    ],
    allowedAttributes: { a: ["href", "title", "target", "rel"] },
    allowedSchemes: ["http", "https", "mailto"],
    transformTags: {
      a: sanitizeHtml.simpleTransform("a", { rel: "noopener noreferrer nofollow" }),
    },
  });
}

const HTML_TAG = /<\/?[a-z][a-z0-9]*(\s[^>]*)?>/i;

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * Terms and privacy as administrators type them (docs/product.md#back-office-site-texts):
 * HTML is sanitised; text with no tag at all is plain text, whose blank lines start a new
 * paragraph and whose single line breaks stay line breaks.
 */
export function legalTextHtml(content: string): string {
  if (HTML_TAG.test(content)) return sanitizeRichText(content);
  return content
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => `<p>${escapeHtml(block).replace(/\n/g, "<br>")}</p>`)
    .join("\n");
}
