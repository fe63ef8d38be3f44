import { Link, useLocation } from "react-router";
import { PHONE_MESSAGES } from "~/schemas/phone-rules";

/**
 * In place of a comment or review form while the operator requires a bound phone and the
 * reader has none (后台实名, decision 235): the message and the way to /settings/phone,
 * which brings the reader back here. The server refuses the post all the same.
 */
export function PhoneNeeded() {
  const location = useLocation();
  const back = new URLSearchParams({ redirectTo: location.pathname + location.search });
  return (
    <p className="comment-login" data-testid="phone-needed">
      {PHONE_MESSAGES.required}。<Link to={`/settings/phone?${back}`}>绑定手机号</Link>
    </p>
  );
}
