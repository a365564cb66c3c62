// SPDX-License-Identifier: GPL-3.0-or-later
//
// The page as site packs see it when they are type-checked
// (tsconfig.sites.json only; the extension's own code keeps the strict DOM
// types). A pack written as the mcp-servers guide writes it is untyped
// JavaScript: `document.querySelector('#kw').value = text` is right there,
// because the author knows #kw is an input. So a selector without a type
// argument gives `any`, as it would in plain JavaScript, and the guide's
// examples type-check as written. Give the element type to have it
// checked: `document.querySelector<HTMLInputElement>('#kw')`.

interface ParentNode {
  querySelector (selectors: string): any;
}
