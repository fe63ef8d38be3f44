import sanitizeHtml from "sanitize-html";

/** Administrator-written HTML (terms, privacy) made safe to render: no scripts, no handlers. */
export function sanitizeRichText(html: string): string {
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
