import { createCookie } from "react-router";

/** After registering without JavaScript, the login view opens with this e-mail filled in. */
export const authEmailCookie = createCookie("inkstone_auth_email", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  maxAge: 120,
});
