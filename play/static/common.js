// What the web table's pages share: a JSON request to the server with the seat's token.
"use strict";

async function request(method, path, body, token) {
  const headers = {"Content-Type": "application/json"};
  if (token) headers["X-Seat-Token"] = token;
  const response = await fetch(path, {method, headers, body: body ? JSON.stringify(body) : undefined});
  const text = await response.text();
  let data = null;
  try { data = JSON.parse(text); } catch { /* an error page that is not JSON */ }
  if (!response.ok) throw new Error(data?.error || `${response.status} ${response.statusText}`);
  return data;
}

function cardNode(text, tag = "span") {
  const node = document.createElement(tag);
  node.className = "card";
  node.textContent = text;
  if (text.startsWith("JK")) node.classList.add("joker");
  else if ("HD".includes(text.slice(-1))) node.classList.add("red");
  return node;
}
